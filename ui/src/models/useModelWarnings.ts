// The warnings about the open crew's models (models/warnings.ts), kept up to date
// as the crew is edited and as models are added or checked.
import { useMemo } from "react";
import { useEditor } from "../editor/store";
import type { ShownProblem } from "../graph/problems";
import { useModels } from "./store";
import { modelWarnings } from "./warnings";

const none: ShownProblem[] = [];

export function useModelWarnings(): ShownProblem[] {
  const spec = useEditor((s) => s.spec);
  const models = useModels();
  return useMemo(() => (spec && models ? modelWarnings(spec, models) : none), [spec, models]);
}
