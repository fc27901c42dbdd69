// What the window does to test a crew's routes through the backend: one call of
// `test_crew` on the saved crew, its report (or why it could not be made, in words)
// fed to the coverage store. A test of a crew the person has since left is dropped.
import { backend, BackendError } from "../../backend";
import { coverageStore } from "../../run/coverageStore";

/** Tests the crew saved at `crewPath`: its Simulate scenarios, no model called. */
export async function testRoutes(crewPath: string): Promise<void> {
  const store = coverageStore.getState();
  store.started(crewPath);
  try {
    const report = await backend.testCrew(crewPath);
    coverageStore.getState().finished(crewPath, report);
  } catch (error) {
    coverageStore.getState().failed(crewPath, reason(error));
  }
}

/** A refusal in words: the crew's problems first line by line, else the message. */
function reason(error: unknown): string {
  if (error instanceof BackendError && error.code === "invalid_crew") {
    return "The crew has problems to fix before its routes can be tested (see the problems list).";
  }
  return error instanceof Error ? error.message : String(error);
}
