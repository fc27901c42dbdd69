// The keyboard shortcuts, one keypress (?) away.
import { Dialog } from "../Dialog";
export const shortcuts: [string, string][] = [
  ["A", "Add an agent"],
  ["Double-click the canvas", "Add an agent there"],
  ["Drag from a card's right edge to another card", "Connect them with a signal"],
  ["Delete / Backspace", "Delete what is selected"],
  ["Ctrl+C / Ctrl+V", "Copy / paste agents"],
  ["Ctrl+Z", "Undo"],
  ["Ctrl+Shift+Z or Ctrl+Y", "Redo"],
  ["Ctrl+A", "Select everything"],
  ["Shift+drag or Ctrl+click", "Select several"],
  ["G", "Make a parallel group of the selected agents"],
  ["F", "Fit the whole crew on screen"],
  ["L", "Tidy up (automatic layout)"],
  ["Ctrl+S / Ctrl+Shift+S", "Save / Save as"],
  ["?", "Show this list"],
  ["Right-click, Shift+F10 or the menu key", "What can be done with the card, arrow or canvas (Tab moves between cards and arrows)"],
  ["Escape", "Close a dialog or menu, clear the selection"],
];

export function HelpOverlay({ onClose }: { onClose: () => void }) {
  return (
    <Dialog className="help-overlay" labelledBy="help-title" onClose={onClose}>
        <h2 id="help-title">Keyboard shortcuts</h2>
        <table>
          <tbody>
            {shortcuts.map(([keys, what]) => (
              <tr key={keys}>
                <td>
                  <kbd>{keys}</kbd>
                </td>
                <td>{what}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div className="dialog-actions">
          <button type="button" className="primary" onClick={onClose} autoFocus>
            Close
          </button>
        </div>
    </Dialog>
  );
}
