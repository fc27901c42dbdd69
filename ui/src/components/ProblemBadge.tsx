// The red (error) or amber (warning) badge on a card or an edge pill; hovering
// shows the messages in plain words.
import type { Badge } from "../graph/problems";
import { AlertIcon, ErrorIcon } from "./icons";

export function ProblemBadge({ badge, small = false }: { badge: Badge; small?: boolean }) {
  const words = badge.messages.join("\n");
  return (
    <span className={`problem-badge ${badge.severity}${small ? " small" : ""}`} title={words} role="img" aria-label={words}>
      {badge.severity === "error" ? <ErrorIcon size={small ? 12 : 14} /> : <AlertIcon size={small ? 12 : 14} />}
    </span>
  );
}
