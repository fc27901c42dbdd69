// A modal dialog over the dimmed window: Escape or a press outside it closes it.
// With `onSubmit` the dialog is a form (Enter submits).
import type { FormEvent, KeyboardEvent, ReactNode } from "react";

type Props = {
  /** The id of the dialog's title. */
  labelledBy: string;
  className: string;
  onClose: () => void;
  onSubmit?: (event: FormEvent<HTMLFormElement>) => void;
  children: ReactNode;
};

export function Dialog({ labelledBy, className, onClose, onSubmit, children }: Props) {
  const box = {
    className: `dialog ${className}`,
    role: "dialog",
    "aria-modal": true,
    "aria-labelledby": labelledBy,
    onKeyDown: (event: KeyboardEvent) => event.key === "Escape" && onClose(),
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a click beside the dialog closes it; keyboards use Escape
    <div className="dialog-backdrop" role="presentation" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      {onSubmit ? (
        <form {...box} onSubmit={onSubmit}>
          {children}
        </form>
      ) : (
        <div {...box}>{children}</div>
      )}
    </div>
  );
}
