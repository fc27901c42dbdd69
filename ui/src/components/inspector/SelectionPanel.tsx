// Several things selected: how many, making a parallel group of the selected
// agents (its name asked in place), and deleting them all in one step.
import { type FormEvent, useState } from "react";
import { uniqueAgentId } from "../../editor/agents";
import { createGroup } from "../../editor/groups";
import { useEditor } from "../../editor/store";
import { apply, select } from "./apply";
import { deleteItems, sortSelection } from "../../editor/deleteItems";
import { groupNodeId } from "../../graph/refs";
import { PanelTitle, TextField } from "./fields";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function SelectionPanel({ ids }: { ids: string[] }) {
  const spec = useEditor((s) => s.spec);
  const document = useEditor((s) => s.document);
  const checked = useEditor((s) => s.checked);
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState("");
  const [refusal, setRefusal] = useState<string | null>(null);
  if (!spec) return null;
  const graph = document?.graph ?? null;
  const { agents, groups, arrows } = sortSelection(spec, ids, graph);
  const count = agents.length + groups.length + arrows.length;
  const stale = arrows.length > 0 && checked !== spec;
  const parts = [
    agents.length ? plural(agents.length, "agent") : "",
    groups.length ? plural(groups.length, "group") : "",
    arrows.length ? plural(arrows.length, "arrow") : "",
  ].filter(Boolean);

  const startNaming = () => {
    setName(uniqueAgentId(spec, "group"));
    setRefusal(null);
    setNaming(true);
  };
  const makeGroup = (event: FormEvent) => {
    event.preventDefault();
    const id = name.trim();
    const error = apply(`Make the group ${id}`, (s) => createGroup(s, id, agents));
    setRefusal(error);
    if (error === null) select([groupNodeId(id)]);
  };
  const remove = () => {
    const error = apply(`Delete ${plural(count, "item")}`, (s) => deleteItems(s, ids, graph));
    setRefusal(error);
    if (error === null) select([]);
  };

  return (
    <section className="ins-panel" aria-label="Selection">
      <PanelTitle kind="Selection" title={`${ids.length} selected`} />
      <p className="ins-text">{parts.length > 0 ? parts.join(", ") : "Nothing here can be changed together."}</p>
      {agents.length > 0 &&
        (naming ? (
          <form onSubmit={makeGroup} aria-label="Make a parallel group">
            <TextField
              label="Group name"
              help="Short name used in routes. The selected agents will work side by side in it."
              value={name}
              live
              autoFocus
              mono
              error={refusal}
              onCommit={(value) => {
                setName(value);
                setRefusal(null);
                return null;
              }}
            />
            <div className="ins-actions">
              <button type="submit" className="ins-button primary">
                Make the group
              </button>
              <button type="button" className="ins-button" onClick={() => setNaming(false)}>
                Cancel
              </button>
            </div>
          </form>
        ) : (
          <div className="ins-actions">
            <button type="button" className="ins-button" onClick={startNaming}>
              Make a parallel group
            </button>
          </div>
        ))}
      {count > 0 && (
        <div className="ins-actions">
          <button type="button" className="ins-button danger" disabled={stale} onClick={remove}>
            Delete {plural(count, "item")}
          </button>
          {stale && <span className="ins-muted" role="status">Checking…</span>}
        </div>
      )}
      {refusal && !naming && (
        <p className="ins-error" role="alert">
          {refusal}
        </p>
      )}
    </section>
  );
}
