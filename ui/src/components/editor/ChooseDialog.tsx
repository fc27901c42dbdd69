// "Connect Teacher to…", "Re-point this arrow to…": the places an arrow can lead,
// one button each, the first one focused. Escape or Cancel closes it.
import { useEffect, useRef } from "react";
import { Dialog } from "../Dialog";

export type Choice = { value: string; label: string; detail?: string };

type Props = {
  title: string;
  help: string;
  choices: Choice[];
  /** Said when there is nothing to choose. */
  empty: string;
  /** Why the last choice was refused. */
  error?: string | null;
  onChoose: (value: string) => void;
  onClose: () => void;
};

export function ChooseDialog({ title, help, choices, empty, error, onChoose, onClose }: Props) {
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    list.current?.querySelector<HTMLButtonElement>("button")?.focus();
  }, []);
  return (
    <Dialog className="choose-dialog" labelledBy="choose-title" onClose={onClose}>
      <h2 id="choose-title">{title}</h2>
      <p className="dialog-help">{help}</p>
      {choices.length === 0 ? (
        <p className="dialog-help">{empty}</p>
      ) : (
        <ul className="choose-list" ref={list}>
          {choices.map((choice) => (
            <li key={choice.value}>
              <button type="button" className="choose-item" onClick={() => onChoose(choice.value)}>
                <span className="choose-label">{choice.label}</span>
                {choice.detail && <span className="choose-detail">{choice.detail}</span>}
              </button>
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
