// The inspector's form controls: a labelled field with one line of help and an
// inline error, a text field that applies on blur or Enter (Escape takes the
// change back), a checkbox, chips for lists of words, a select, and the list of
// an item's problems. Each control either applies as it is left (`onCommit`,
// one undo step per change) or, with `live`, hands every keystroke to a draft.
import { type KeyboardEvent, type ReactNode, useEffect, useId, useState } from "react";
import type { ShownProblem } from "../../graph/problems";
import { AlertIcon, ErrorIcon } from "../icons";
import { checkSignalName, useSignalCheck } from "./useSignalCheck";

/** Applies a value: the refusal's words, or null when it was applied. */
export type Commit<T> = (value: T) => string | null;

type FieldProps = {
  id: string;
  label: string;
  help?: string;
  error?: string | null;
  children: ReactNode;
};

/** A label, the control, its error (if any) and one line of help under it. */
export function Field({ id, label, help, error, children }: FieldProps) {
  return (
    <div className="ins-field">
      <label className="ins-label" htmlFor={id}>
        {label}
      </label>
      {children}
      <FieldNotes id={id} error={error} help={help} />
    </div>
  );
}

/** Under a field: what is wrong (announced) and what the field is for. */
function FieldNotes({ id, error, help }: { id: string; error?: string | null; help?: string }) {
  return (
    <>
      {error && (
        <p className="ins-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
      {help && (
        <p className="ins-help" id={`${id}-help`}>
          {help}
        </p>
      )}
    </>
  );
}

/** The ids an input is described by: its help and its error. */
export function describedBy(id: string, help?: string, error?: string | null): string | undefined {
  const ids = [help ? `${id}-help` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return ids || undefined;
}

type TextFieldProps = {
  label: string;
  help?: string;
  value: string;
  onCommit: Commit<string>;
  /** Hand every change to `onCommit` (a draft form) instead of applying on blur. */
  live?: boolean;
  multiline?: boolean;
  rows?: number;
  type?: "text" | "number";
  min?: number;
  max?: number;
  step?: number;
  placeholder?: string;
  disabled?: boolean;
  autoFocus?: boolean;
  /** What is wrong with the text as typed; shown at once, and nothing is applied. */
  validate?: (text: string) => string | null;
  /** An error from outside (a refusal the form got on submit). */
  error?: string | null;
  /** The text is a signal name: the engine checks it as it is typed and before
   * it is applied. */
  signalName?: boolean;
  mono?: boolean;
};

/**
 * A text input (or textarea) showing `value`. Edits stay a draft until the person
 * leaves the field or presses Enter (Ctrl+Enter in a textarea); then `onCommit`
 * applies them, and its refusal is shown under the field with the draft kept.
 * Escape puts the value back. A changed `value` (undo, another agent) replaces
 * the draft.
 */
export function TextField(props: TextFieldProps) {
  const { label, help, value, onCommit, live = false, multiline = false, validate, signalName = false } = props;
  const id = useId();
  const [draft, setDraft] = useState(value);
  const [refusal, setRefusal] = useState<string | null>(null);
  useEffect(() => {
    setDraft(value);
    setRefusal(null);
  }, [value]);
  const typed = useSignalCheck(signalName && (live || draft !== value) ? draft : "");
  const invalid = validate ? validate(draft) : null;
  const error = props.error ?? invalid ?? refusal ?? typed;

  const commit = () => {
    if (live) return;
    if (draft === value) {
      setRefusal(null);
      return;
    }
    if (validate?.(draft)) return;
    if (!signalName) {
      setRefusal(onCommit(draft));
      return;
    }
    const text = draft;
    void checkSignalName(text).then((problem) => setRefusal(problem ?? onCommit(text)));
  };

  const change = (text: string) => {
    setDraft(text);
    setRefusal(null);
    if (live) onCommit(text);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement | HTMLTextAreaElement>) => {
    if (event.key === "Escape" && draft !== value) {
      event.stopPropagation();
      setDraft(value);
      setRefusal(null);
    } else if (event.key === "Enter" && !live && (!multiline || event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      commit();
    }
  };

  const common = {
    id,
    value: draft,
    disabled: props.disabled,
    placeholder: props.placeholder,
    autoFocus: props.autoFocus,
    className: `ins-input${props.mono ? " mono" : ""}`,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": describedBy(id, help, error),
    onBlur: commit,
    onKeyDown,
  };
  return (
    <Field id={id} label={label} help={help} error={error}>
      {multiline ? (
        <textarea {...common} rows={props.rows ?? 3} onChange={(e) => change(e.target.value)} />
      ) : (
        <input
          {...common}
          type={props.type ?? "text"}
          min={props.min}
          max={props.max}
          step={props.step}
          spellCheck={signalName ? false : undefined}
          onChange={(e) => change(e.target.value)}
        />
      )}
    </Field>
  );
}

type CheckFieldProps = {
  label: string;
  help?: string;
  checked: boolean;
  onChange: Commit<boolean>;
  disabled?: boolean;
};

/** A checkbox applied as soon as it is ticked or cleared. */
export function CheckField({ label, help, checked, onChange, disabled }: CheckFieldProps) {
  const id = useId();
  const [refusal, setRefusal] = useState<string | null>(null);
  return (
    <div className="ins-field ins-check">
      <label className="ins-check-label" htmlFor={id}>
        <input
          id={id}
          type="checkbox"
          checked={checked}
          disabled={disabled}
          aria-describedby={describedBy(id, help, refusal)}
          onChange={(e) => setRefusal(onChange(e.target.checked))}
        />
        <span>{label}</span>
      </label>
      <FieldNotes id={id} error={refusal} help={help} />
    </div>
  );
}

type SelectFieldProps = {
  label: string;
  help?: string;
  value: string;
  options: { value: string; label: string }[];
  onChange: Commit<string>;
  disabled?: boolean;
};

/** A select applied as soon as another option is picked. */
export function SelectField({ label, help, value, options, onChange, disabled }: SelectFieldProps) {
  const id = useId();
  const [refusal, setRefusal] = useState<string | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: value is the trigger (a new value ends the refusal)
  useEffect(() => setRefusal(null), [value]);
  return (
    <Field id={id} label={label} help={help} error={refusal}>
      <select
        id={id}
        className="ins-input"
        value={value}
        disabled={disabled}
        aria-describedby={describedBy(id, help, refusal)}
        onChange={(e) => setRefusal(onChange(e.target.value))}
      >
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </Field>
  );
}

type ChipsFieldProps = {
  label: string;
  help?: string;
  values: string[];
  onChange: Commit<string[]>;
  placeholder?: string;
};

/**
 * A list of words as chips: type and press Enter or a comma to add (a word
 * typed when leaving the field is added too), × removes a chip, Backspace in the
 * empty input removes the last one. Each change is applied at once.
 */
export function ChipsField({ label, help, values, onChange, placeholder }: ChipsFieldProps) {
  const id = useId();
  const [draft, setDraft] = useState("");
  const [refusal, setRefusal] = useState<string | null>(null);

  const add = (text: string) => {
    const words = text
      .split(",")
      .map((w) => w.trim())
      .filter((w) => w !== "");
    const fresh = words.filter((w, i) => !values.includes(w) && words.indexOf(w) === i);
    setDraft("");
    if (fresh.length > 0) setRefusal(onChange([...values, ...fresh]));
  };
  const remove = (word: string) => setRefusal(onChange(values.filter((v) => v !== word)));

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "Enter" || event.key === ",") {
      event.preventDefault();
      add(draft);
    } else if (event.key === "Backspace" && draft === "" && values.length > 0) {
      event.preventDefault();
      remove(values[values.length - 1]);
    }
  };

  return (
    <Field id={id} label={label} help={help} error={refusal}>
      <div className="ins-chips-box">
        {values.length > 0 && (
          <ul className="ins-chips" aria-label={`${label} so far`}>
            {values.map((word) => (
              <li key={word} className="ins-chip">
                <span>{word}</span>
                <button type="button" className="ins-chip-remove" aria-label={`Remove ${word}`} title={`Remove ${word}`} onClick={() => remove(word)}>
                  ×
                </button>
              </li>
            ))}
          </ul>
        )}
        <input
          id={id}
          className="ins-chips-input"
          value={draft}
          placeholder={placeholder ?? "Type and press Enter"}
          aria-describedby={describedBy(id, help, refusal)}
          onChange={(e) => {
            const text = e.target.value;
            if (text.includes(",")) add(text);
            else setDraft(text);
          }}
          onKeyDown={onKeyDown}
          onBlur={() => draft.trim() !== "" && add(draft)}
        />
      </div>
    </Field>
  );
}

type ChoicesFieldProps = {
  label: string;
  help?: string;
  /** Every choice, with what to show for it. */
  choices: { value: string; label: string }[];
  chosen: string[];
  onToggle: (value: string, on: boolean) => string | null;
  empty: string;
};

/** Several choices as checkboxes in a fieldset (a multi-select that reads well
 * and works with the keyboard); each tick is applied at once. */
export function ChoicesField({ label, help, choices, chosen, onToggle, empty }: ChoicesFieldProps) {
  const id = useId();
  const [refusal, setRefusal] = useState<string | null>(null);
  return (
    <fieldset className="ins-field ins-choices" aria-describedby={describedBy(id, help, refusal)}>
      <legend className="ins-label">{label}</legend>
      {choices.length === 0 ? (
        <p className="ins-muted">{empty}</p>
      ) : (
        choices.map((choice) => (
          <label key={choice.value} className="ins-check-label">
            <input
              type="checkbox"
              checked={chosen.includes(choice.value)}
              onChange={(e) => setRefusal(onToggle(choice.value, e.target.checked))}
            />
            <span>{choice.label}</span>
          </label>
        ))
      )}
      {refusal && (
        <p className="ins-error" id={`${id}-error`} role="alert">
          {refusal}
        </p>
      )}
      {help && (
        <p className="ins-help" id={`${id}-help`}>
          {help}
        </p>
      )}
    </fieldset>
  );
}

/** An item's problems in plain words; the exact message shows on hover and to
 * screen readers. */
export function ProblemList({ problems }: { problems: ShownProblem[] }) {
  if (problems.length === 0) return null;
  return (
    <ul className="ins-problems" aria-label="Problems here">
      {problems.map((problem, index) => {
        const { severity, plain, message } = problem.diagnostic;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: problems have no id and may repeat; the list is redrawn whole with each verdict
          // biome-ignore lint/a11y/noNoninteractiveTabindex: focusable so a keyboard reaches the exact message in its title
          <li key={index} className={`ins-problem ${severity}`} title={message} tabIndex={0}>
            {severity === "error" ? <ErrorIcon size={14} /> : <AlertIcon size={14} />}
            <span>{plain}</span>
            <span className="ins-visually-hidden"> (exactly: {message})</span>
          </li>
        );
      })}
    </ul>
  );
}

/** The heading of a panel: what kind of thing is selected, and its name. */
export function PanelTitle({ kind, title }: { kind: string; title: ReactNode }) {
  return (
    <header className="ins-title">
      <div className="ins-kind">{kind}</div>
      <h2>{title}</h2>
    </header>
  );
}
