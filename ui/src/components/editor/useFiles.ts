// The editor's files: New, Open (a crew file or a Go-engine crew folder), Save,
// Save As, Import, Import CrewAI project, Export YAML, recent crews, the unsaved-changes question before
// anything would drop edits (opening another crew, closing the window), and
// noticing a crew changed on disk by another program while it is open.
import { useCallback, useEffect, useRef, useState } from "react";
import { backend, BackendError } from "../../backend";
import type { EditableCrew } from "../../bindings/EditableCrew";
import type { RecentCrew } from "../../bindings/RecentCrew";
import { emptyCrew } from "../../editor/newCrew";
import { editorStore } from "../../editor/store";
import { runStore } from "../../run/store";
import { type ImportReport, importedNotice } from "./crewaiImport";
import { askUnsaved } from "./unsaved";

/** How often an open crew's files are compared with what was opened. */
const DISK_POLL_MS = 3000;

export type Files = {
  /** A crew is open (or new) in the editor. */
  open: boolean;
  /** Counts the crews shown: each one starts with a fresh view (fitted to the screen). */
  generation: number;
  /** The file could not be read as a crew: its text, to show. */
  unreadable: { path: string; text: string | null } | null;
  /** A message for the banner (what happened, what to try). */
  notice: { kind: "info" | "error"; text: string } | null;
  /** The crew changed on disk while it had unsaved edits here. */
  changedOnDisk: boolean;
  recent: RecentCrew[];
  /** What the last CrewAI import could not carry over (null: nothing to list). */
  importReport: ImportReport | null;
  /** Opens a crew; `force` drops unsaved edits without asking (automation). */
  openPath(path: string, force?: boolean): Promise<void>;
  pick(kind: "file" | "folder"): Promise<void>;
  newCrew(): Promise<void>;
  importCrew(): Promise<void>;
  /** Opens a crew made from a CrewAI project the person picks, unsaved. */
  importCrewAi(): Promise<void>;
  save(): Promise<boolean>;
  saveAs(): Promise<boolean>;
  exportYaml(): Promise<void>;
  reload(): Promise<void>;
  close(): Promise<void>;
  dismiss(): void;
};

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function useFiles(): Files {
  const [open, setOpen] = useState(false);
  const [generation, setGeneration] = useState(0);
  const [unreadable, setUnreadable] = useState<Files["unreadable"]>(null);
  const [notice, setNotice] = useState<Files["notice"]>(null);
  const [changedOnDisk, setChangedOnDisk] = useState(false);
  const [recent, setRecent] = useState<RecentCrew[]>([]);
  const [importReport, setImportReport] = useState<ImportReport | null>(null);
  // What the crew's files looked like when opened or last saved.
  const disk = useRef<string | null>(null);

  const refreshRecent = useCallback(() => {
    backend.recentCrews().then(setRecent, () => {});
  }, []);
  useEffect(refreshRecent, [refreshRecent]);

  // Save, for the unsaved-changes question (defined below).
  const saving = useRef<() => Promise<boolean>>(async () => false);

  /** True when there are no unsaved edits, or the person saved them or agrees to
   * drop them (the window's question: Save, Discard or Cancel). */
  const mayDrop = useCallback(async (doing: string) => {
    if (!editorStore.getState().dirty) return true;
    const asked = askUnsaved(doing);
    if (!asked) {
      return backend.confirm(`This crew has changes that are not saved. ${doing} anyway and lose them?`, "Unsaved changes", "Lose changes", "Keep editing");
    }
    const answer = await asked;
    if (answer === "save") return saving.current();
    return answer === "discard";
  }, []);

  const show = useCallback((crew: EditableCrew) => {
    disk.current = crew.disk;
    setChangedOnDisk(false);
    if (!crew.spec) {
      editorStore.getState().load({ path: null, layout: crew.layout, spec: emptyCrew(""), document: crew.document, positions: {} });
      setUnreadable({ path: crew.path, text: crew.text });
      setOpen(false);
      return;
    }
    setUnreadable(null);
    // Another crew: the last run's marks go, unless that run is still going on.
    const run = runStore.getState();
    if (run.ended !== null || !run.view) run.reset();
    editorStore.getState().load({ path: crew.path, layout: crew.layout, spec: crew.spec, document: crew.document, positions: crew.positions });
    setGeneration((n) => n + 1);
    setOpen(true);
  }, []);

  const openPath = useCallback(
    async (path: string, force = false) => {
      if (!force && !(await mayDrop("Open another crew"))) return;
      try {
        show(await backend.editCrew(path));
        setNotice(null);
      } catch (error) {
        setNotice({ kind: "error", text: `Could not open ${path}: ${message(error)}` });
      }
      refreshRecent();
    },
    [mayDrop, show, refreshRecent],
  );

  const pick = useCallback(
    async (kind: "file" | "folder") => {
      const path = await backend.pickCrew(kind).catch(() => null);
      if (path) await openPath(path);
    },
    [openPath],
  );

  const newCrew = useCallback(async () => {
    if (!(await mayDrop("Start a new crew"))) return;
    disk.current = null;
    setUnreadable(null);
    editorStore.getState().load({ path: null, layout: "file", spec: emptyCrew("New crew"), document: null, positions: {} });
    setGeneration((n) => n + 1);
    setOpen(true);
    setNotice({ kind: "info", text: "A new crew: add agents with the + button or by double-clicking the canvas." });
  }, [mayDrop]);

  /** Opens a crew's content as a new, unsaved crew (its file is left alone). */
  const importCrew = useCallback(async () => {
    if (!(await mayDrop("Import a crew"))) return;
    const path = await backend.pickCrew("file").catch(() => null);
    if (!path) return;
    try {
      const crew = await backend.editCrew(path);
      if (!crew.spec) {
        setNotice({ kind: "error", text: `${path} could not be read as a crew: ${crew.document.problems[0]?.diagnostic.plain ?? "unknown problem"}` });
        return;
      }
      disk.current = null;
      setUnreadable(null);
      editorStore.getState().load({ path: null, layout: "file", spec: crew.spec, document: crew.document, positions: crew.positions });
      editorStore.setState({ dirty: true });
      setGeneration((n) => n + 1);
      setOpen(true);
      setNotice({ kind: "info", text: `Imported from ${path}. Save it to choose where it lives.` });
    } catch (error) {
      setNotice({ kind: "error", text: `Could not import ${path}: ${message(error)}` });
    }
  }, [mayDrop]);

  /** Opens a crew made from a CrewAI project as a new, unsaved crew, as Import does. */
  const importCrewAi = useCallback(async () => {
    if (!(await mayDrop("Import a CrewAI project"))) return;
    try {
      const project = await backend.pickCrewAiProject();
      if (!project) return;
      const imported = await backend.importCrewAi(project.files, project.name);
      disk.current = null;
      setUnreadable(null);
      editorStore.getState().load({ path: null, layout: "file", spec: imported.spec, document: null, positions: {} });
      editorStore.setState({ dirty: true });
      setGeneration((n) => n + 1);
      setOpen(true);
      setNotice({ kind: "info", text: importedNotice(imported) });
      setImportReport(imported.warnings.length > 0 ? { name: imported.name, warnings: imported.warnings } : null);
    } catch (error) {
      setNotice({ kind: "error", text: `Could not import the CrewAI project: ${message(error)}` });
    }
  }, [mayDrop]);

  const write = useCallback(
    async (path: string, isNew: boolean): Promise<boolean> => {
      const state = editorStore.getState();
      if (!state.spec) return false;
      const snapshot = { spec: state.spec, positions: state.positions };
      const request = {
        path,
        layout: isNew ? ("file" as const) : state.layout,
        spec: state.spec,
        positions: state.positions,
        disk: isNew ? undefined : (disk.current ?? undefined),
        overwrite: isNew,
      };
      try {
        let saved: Awaited<ReturnType<typeof backend.saveCrew>>;
        try {
          saved = await backend.saveCrew(request);
        } catch (error) {
          if (!(error instanceof BackendError) || error.code !== "conflict") throw error;
          const replace = await backend.confirm(`${error.message}.`, "Changed on disk", "Replace it", "Cancel");
          if (!replace) return false;
          saved = await backend.saveCrew({ ...request, overwrite: true });
        }
        disk.current = saved.disk;
        setChangedOnDisk(false);
        state.markSaved({ path: saved.path, layout: request.layout, document: saved.document, snapshot });
        const errors = saved.document.problems.filter((p) => p.diagnostic.severity === "error").length;
        setNotice(
          errors
            ? { kind: "info", text: `Saved, with ${errors} problem${errors === 1 ? "" : "s"} still to fix before it can run.` }
            : { kind: "info", text: `Saved to ${saved.path}.` },
        );
        refreshRecent();
        return true;
      } catch (error) {
        setNotice({ kind: "error", text: `Not saved: ${message(error)}` });
        return false;
      }
    },
    [refreshRecent],
  );

  const saveAs = useCallback(async () => {
    const { spec, path } = editorStore.getState();
    const name = (spec?.name ?? "crew").trim().toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-|-$/g, "") || "crew";
    const suggested = path && !path.endsWith("/") ? path.replace(/[^/]*$/, `${name}.yaml`) : `${name}.yaml`;
    const target = await backend.pickSavePath(suggested, "Save the crew as").catch(() => null);
    if (!target) return false;
    return write(target.endsWith(".yaml") || target.endsWith(".yml") ? target : `${target}.yaml`, true);
  }, [write]);

  const save = useCallback(async () => {
    const { path } = editorStore.getState();
    return path ? write(path, false) : saveAs();
  }, [write, saveAs]);
  saving.current = save;

  const exportYaml = useCallback(async () => {
    const { spec } = editorStore.getState();
    if (!spec) return;
    const target = await backend.pickSavePath("crew-export.yaml", "Export the crew as one YAML file").catch(() => null);
    if (!target) return;
    try {
      await backend.exportCrew(target, spec);
      setNotice({ kind: "info", text: `Exported to ${target}.` });
    } catch (error) {
      setNotice({ kind: "error", text: `Not exported: ${message(error)}` });
    }
  }, []);

  const reload = useCallback(async () => {
    const { path } = editorStore.getState();
    if (!path) return;
    editorStore.setState({ dirty: false });
    await openPath(path);
    setNotice({ kind: "info", text: "Reloaded from disk." });
  }, [openPath]);

  const close = useCallback(async () => {
    if (!(await mayDrop("Close this crew"))) return;
    editorStore.setState({ dirty: false });
    setOpen(false);
    setUnreadable(null);
    setNotice(null);
    refreshRecent();
  }, [mayDrop, refreshRecent]);

  // A crew changed by another program: reloaded when nothing here would be lost,
  // otherwise the person chooses (banner).
  useEffect(() => {
    if (!open) return;
    let busy = false;
    const check = async () => {
      const { path, dirty } = editorStore.getState();
      const seen = disk.current;
      if (busy || !path || seen === null) return;
      busy = true;
      // Another crew opened (or this one saved) while the disk was asked: the answer
      // is about what is no longer shown, and must not bring it back.
      const moved = () => editorStore.getState().path !== path || disk.current !== seen;
      try {
        const now = await backend.crewDisk(path);
        if (now === seen || moved()) return;
        if (dirty) {
          setChangedOnDisk(true);
        } else {
          const reread = await backend.editCrew(path);
          if (moved()) return;
          show(reread);
          setNotice({ kind: "info", text: "This crew was changed by another program; it now shows those changes." });
        }
      } catch {
        // The next look will tell.
      } finally {
        busy = false;
      }
    };
    const timer = window.setInterval(check, DISK_POLL_MS);
    window.addEventListener("focus", check);
    return () => {
      window.clearInterval(timer);
      window.removeEventListener("focus", check);
    };
  }, [open, show]);

  // Closing the window with unsaved edits asks first.
  useEffect(() => backend.guardClose(() => editorStore.getState().dirty, () => mayDrop("Close Crewgraph")), [mayDrop]);

  return {
    open,
    generation,
    unreadable,
    notice,
    changedOnDisk,
    recent,
    importReport,
    openPath,
    pick,
    newCrew,
    importCrew,
    importCrewAi,
    save,
    saveAs,
    exportYaml,
    reload,
    close,
    dismiss: () => {
      setNotice(null);
      setChangedOnDisk(false);
      setImportReport(null);
    },
  };
}
