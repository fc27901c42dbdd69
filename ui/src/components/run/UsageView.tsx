// What the run shown cost (the run dock's Usage tab): the run's totals in words —
// "1,234 tokens in · 321 out · 4.2 s" — then a bar chart per agent of the tokens
// its model read (in) and wrote (out), and one of the time its turns took (each
// from the agent's start to its whole reply, added up), in the agents' colours.
// Simulate mode reports no tokens: the view says none were spent and still charts
// the time. Folded from the run's events by the reducer (`RunView.usage`).
import { useMemo } from "react";
import { avatarColor } from "../../graph/style";
import type { RunUsage } from "../../run/reducer";
import { useRun } from "../../run/store";
import { type Namer, seconds, tokenCount, usageWords } from "../../run/words";
import { BarChart, type BarSeries } from "./BarChart";
import { useNames } from "./useNames";

/** Token colours: what the model read, lighter; what it wrote, darker. */
export const TOKENS_IN = "#60a5fa";
export const TOKENS_OUT = "#1d4ed8";

type Charts = { labels: string[]; tokens: BarSeries[]; time: BarSeries[]; tokenSummary: string; timeSummary: string };

/** The charts' rows and series, and what each says in words. */
export function usageCharts(usage: RunUsage, names: Namer): Charts {
  const agents = Object.keys(usage.agents);
  const labels = agents.map(names);
  const of = (pick: (agent: string) => number) => agents.map(pick);
  const input = of((a) => usage.agents[a].inputTokens);
  const output = of((a) => usage.agents[a].outputTokens);
  const time = of((a) => usage.agents[a].latencyMs);
  return {
    labels,
    tokens: [
      { label: "In (read)", values: input, color: TOKENS_IN },
      { label: "Out (written)", values: output, color: TOKENS_OUT },
    ],
    time: [{ label: "Time taken", values: time, color: agents.map(avatarColor) }],
    tokenSummary: labels.map((name, i) => `${name}: ${tokenCount(input[i])} tokens in, ${tokenCount(output[i])} out`).join("; "),
    timeSummary: labels.map((name, i) => `${name}: ${seconds(time[i])}`).join("; "),
  };
}

export function UsageView() {
  const usage = useRun((s) => s.view?.usage ?? null);
  const names = useNames();
  const charts = useMemo(() => (usage ? usageCharts(usage, names) : null), [usage, names]);

  if (!usage || !charts || usage.total.turns === 0) {
    return (
      <section className="run-usage" aria-label="Usage">
        <p className="run-empty">Once an agent has replied, what it cost shows here: the tokens its model read and wrote, and how long it took.</p>
      </section>
    );
  }
  const counted = usage.total.counted > 0;
  return (
    <section className="run-usage" aria-label="Usage">
      <p className="run-usage-total" title="Tokens the models read · tokens they wrote · the time the agents took, added up">
        {usageWords(usage.total)}
      </p>
      {counted ? (
        <div className="run-usage-chart">
          <h4>Tokens</h4>
          <BarChart labels={charts.labels} series={charts.tokens} format={tokenCount} summary={charts.tokenSummary} />
        </div>
      ) : (
        <p className="run-note">No tokens were spent: the replies were simulated (or the model did not count them).</p>
      )}
      <div className="run-usage-chart">
        <h4>Time taken</h4>
        <BarChart labels={charts.labels} series={charts.time} format={seconds} summary={charts.timeSummary} />
      </div>
    </section>
  );
}
