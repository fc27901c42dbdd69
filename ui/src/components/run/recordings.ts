// A run recording opened in the window (Import recording…): its crew is opened
// first when it is here (the window: a file path; a browser: a name in the server's
// crews folder), then the run is replayed on the graph with the replay bar. When
// the crew is not here the recording is replayed on the crew that is open, and the
// answer says so in words, for the window's notice.
import type { Recording } from "../../bindings/Recording";
import { replayRecording } from "./runActions";

type Crews = {
  /** The crew open in the editor (null: none). */
  open: string | null;
  /** Opens a crew; false when it cannot be opened here. */
  openCrew: (crew: string) => Promise<boolean>;
};

const fileName = (path: string) => path.split(/[\\/]/).filter(Boolean).pop() ?? path;

/** Replays `recording`, its crew opened first when it can be. Answers what the
 * person should be told (null: nothing, the run shows on its own crew). */
export async function showRecording(recording: Recording, crews: Crews): Promise<string | null> {
  const crew = recording.crew;
  const here = crew !== null && (crew === crews.open || (await crews.openCrew(crew).catch(() => false)));
  replayRecording(recording);
  if (here) return null;
  const which = crew ? `This recording's crew (${fileName(crew)}) is not here` : "This recording does not say which crew it ran";
  return crews.open
    ? `${which}, so it is replayed on the crew that is open: agents it does not have show by their ids.`
    : `${which}: open a crew with the same agents to see the run on its graph.`;
}
