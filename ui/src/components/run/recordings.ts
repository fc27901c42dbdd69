// A run recording opened in the window (Import recording…): its crew is opened
// first when it is here (the window: a file path; a browser: a name in the server's
// crews folder). A recording made elsewhere — exported from the window and opened
// in a browser, say — names a crew by a path this place cannot reach: then the crew
// here of the same file name, or of the same name, is opened instead. The run is
// then replayed on the graph with the replay bar. When no such crew is here the
// recording is replayed on the crew that is open, and the answer says so in words,
// for the window's notice. Recordings are saved under a name a person knows them
// by: the crew's and what it was asked (`recordingName`).
import type { Recording } from "../../bindings/Recording";
import { replayRecording } from "./runActions";

type Crews = {
  /** The crew open in the editor (null: none). */
  open: string | null;
  /** Opens a crew; false when it cannot be opened here. */
  openCrew: (crew: string) => Promise<boolean>;
  /** The crew open now (after `openCrew`); `open` when not given. */
  current?: () => string | null;
  /** The crew here that stands for a recording's crew this place cannot reach (the
   * same file name, or the same name); null when there is none. */
  lookalike?: (recording: Recording) => Promise<string | null>;
};

const fileName = (path: string) => path.split(/[\\/]/).filter(Boolean).pop() ?? path;

/** Replays `recording`, its crew opened first when it can be. Answers what the
 * person should be told (null: nothing, the run shows on its own crew). */
export async function showRecording(recording: Recording, crews: Crews): Promise<string | null> {
  const crew = recording.crew;
  const shownOn = () => crews.current?.() ?? crews.open;
  const here = crew !== null && (crew === crews.open || (await crews.openCrew(crew).catch(() => false)));
  if (here) {
    replayRecording(recording, shownOn());
    return null;
  }
  const alike = await crews.lookalike?.(recording).catch(() => null);
  if (alike && (alike === crews.open || (await crews.openCrew(alike).catch(() => false)))) {
    replayRecording(recording, shownOn());
    return `This recording was made with ${crew ? fileName(crew) : "a crew"} elsewhere: it is replayed on ${fileName(alike)} from here.`;
  }
  replayRecording(recording, crews.open);
  const which = crew ? `This recording's crew (${fileName(crew)}) is not here` : "This recording does not say which crew it ran";
  return crews.open
    ? `${which}, so it is replayed on the crew that is open: agents it does not have show by their ids.`
    : `${which}: open a crew with the same agents to see the run on its graph.`;
}

/** Characters no file name may hold on some system, and line breaks. */
const UNSAFE = /[\\/:*?"<>|\p{Cc}]+/gu;
/** The most of the input a file name takes. */
const INPUT_CHARS = 60;

/** The file name a recording is offered under: "Interview - Interview me about
 * colours.json" (the crew's name and what it was asked, cut at a word); the run's
 * id when neither is known. */
export function recordingName(crewName: string, input: string, runId: string): string {
  const clean = (text: string) => text.replace(UNSAFE, " ").replace(/\s+/g, " ").trim();
  let asked = clean(input);
  if (asked.length > INPUT_CHARS) {
    const cut = asked.slice(0, INPUT_CHARS);
    const space = cut.lastIndexOf(" ");
    asked = `${(space > INPUT_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s.,;-]+$/, "")}…`;
  }
  const name = [clean(crewName), asked].filter(Boolean).join(" - ").replace(/^\.+/, "");
  return `${name || runId}.json`;
}
