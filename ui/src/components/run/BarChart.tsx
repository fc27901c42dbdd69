// A small horizontal bar chart for the Usage view: one row per agent, one bar per
// series (tokens in and out; time), drawn by chart.js on a canvas. Only the parts
// of chart.js a bar chart needs are registered. It draws without animation (calm,
// and nothing moves for its own sake), in the window's theme colours, and says
// what it shows in words for a screen reader (`summary`).
import { BarController, BarElement, CategoryScale, Chart, type ChartConfiguration, Legend, LinearScale, Tooltip } from "chart.js";
import { useEffect, useRef } from "react";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

/** One series: a value per row, in one colour or a colour per row. */
export type BarSeries = { label: string; values: number[]; color: string | string[] };

export type BarChartProps = {
  /** The rows (the agents' names). */
  labels: string[];
  series: BarSeries[];
  /** A value as the axis and the tooltips say it ("1,234", "4.2 s"). */
  format: (value: number) => string;
  /** What the chart shows, in words. */
  summary: string;
};

/** The theme's colours, as the canvas needs them (it reads no CSS variables). */
type Ink = { text: string; muted: string; grid: string };

/** The chart's height: a row per label, a little more with a legend. */
export function chartHeight(rows: number, series: number): number {
  return rows * (series * 12 + 12) + (series > 1 ? 24 : 0) + 24;
}

/** The chart.js configuration of a bar chart. */
export function barConfig({ labels, series, format }: Omit<BarChartProps, "summary">, ink: Ink): ChartConfiguration<"bar"> {
  return {
    type: "bar",
    data: {
      labels,
      datasets: series.map((s) => ({
        label: s.label,
        data: s.values,
        backgroundColor: s.color,
        hoverBackgroundColor: s.color,
        borderRadius: 3,
        barPercentage: 0.9,
        categoryPercentage: 0.8,
      })),
    },
    options: {
      indexAxis: "y",
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      plugins: {
        legend: { display: series.length > 1, position: "top", align: "start", labels: { color: ink.text, boxWidth: 10, boxHeight: 10, font: { size: 11 } } },
        tooltip: { callbacks: { label: (item) => `${item.dataset.label ?? ""}: ${format(Number(item.raw))}` } },
      },
      scales: {
        x: { beginAtZero: true, ticks: { color: ink.muted, font: { size: 10 }, maxTicksLimit: 4, callback: (value) => format(Number(value)) }, grid: { color: ink.grid } },
        y: { ticks: { color: ink.text, font: { size: 11 } }, grid: { display: false } },
      },
    },
  };
}

function inkOf(element: Element): Ink {
  const style = getComputedStyle(element);
  const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return { text: read("--text", "#1f2433"), muted: read("--muted", "#5d6578"), grid: read("--border", "#e2e5ec") };
}

export function BarChart({ labels, series, format, summary }: BarChartProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart<"bar"> | null>(null);

  // Drawn once, then given new data in place (no new canvas for each reply).
  useEffect(() => {
    const element = canvas.current;
    if (!element) return;
    const config = barConfig({ labels, series, format }, inkOf(element));
    const drawn = chart.current;
    if (!drawn) {
      chart.current = new Chart(element, config);
      return;
    }
    drawn.data = config.data;
    drawn.options = config.options ?? {};
    drawn.update("none");
  }, [labels, series, format]);

  useEffect(
    () => () => {
      chart.current?.destroy();
      chart.current = null;
    },
    [],
  );

  return (
    <div className="run-chart" style={{ height: chartHeight(labels.length, series.length) }}>
      <canvas ref={canvas} role="img" aria-label={summary}>
        {summary}
      </canvas>
    </div>
  );
}
