// The token bar of one model call ("What Teacher saw"): its instructions and the
// messages it was shown, in colour, then the part the context window cut, greyed and
// hatched, against its model's window when known (the bar's empty rest is the room
// that was left) — with the numbers in words above it and a legend under it, so the
// colours are never the only way to read it (run/seenWords.ts).
import type { SeenCall } from "../../bindings/SeenCall";
import { cutWords, partWords, tokenBar, tokenHeadline, windowWords } from "../../run/seenWords";
import { tokenCount } from "../../run/words";

export function TokenBar({ call }: { call: SeenCall }) {
  const bar = tokenBar(call);
  const cut = cutWords(call);
  const summary = [
    tokenHeadline(call),
    ...bar.parts.map((p) => `${partWords[p.kind].label.toLowerCase()}: about ${tokenCount(p.tokens)}`),
  ].join("; ");
  return (
    <div className="seen-tokens">
      <p className="seen-tokens-words">
        <strong>{tokenHeadline(call)}</strong> {windowWords(call)}
      </p>
      <div className="seen-bar" role="img" aria-label={summary} title={summary}>
        {bar.parts.map((part) => (
          <span
            key={part.kind}
            className={`seen-bar-part seen-part-${part.kind}`}
            style={{ width: `${(part.share * 100).toFixed(2)}%` }}
            data-share={part.share.toFixed(4)}
          />
        ))}
      </div>
      <ul className="seen-legend">
        {bar.parts.map((part) => (
          <li key={part.kind} title={partWords[part.kind].title}>
            <span className={`seen-swatch seen-part-${part.kind}`} aria-hidden />
            {partWords[part.kind].label} · about {tokenCount(part.tokens)}
          </li>
        ))}
      </ul>
      <p className={`seen-cut-words${cut ? " cut" : ""}`}>{cut ?? "Its context window left nothing out."}</p>
    </div>
  );
}
