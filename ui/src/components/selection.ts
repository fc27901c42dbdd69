// Lets parts of the canvas (edge pills, the problems list) select a node or edge.
import { createContext } from "react";

export const SelectionContext = createContext<(id: string | null) => void>(() => {});
