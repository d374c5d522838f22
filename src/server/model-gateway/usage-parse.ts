import { NO_USAGE, type Usage } from "./cost";

/**
 * Usage as each upstream reports it, normalised to `Usage`. Forgiving by design: the body is
 * the upstream's, already on its way to the agent; a missing or odd field counts as 0 rather
 * than failing a call that was answered.
 */

type Json = Record<string, unknown>;

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0);
const obj = (v: unknown): Json | null =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : null;

/**
 * Chat Completions `usage` ({prompt_tokens, completion_tokens, prompt_tokens_details.cached_tokens})
 * or Responses `usage` ({input_tokens, output_tokens, input_tokens_details.cached_tokens}):
 * both count cached tokens inside the prompt total.
 */
export function openaiUsage(u: unknown): Usage | null {
  const o = obj(u);
  if (!o) return null;
  const prompt = num(o.prompt_tokens) || num(o.input_tokens);
  const output = num(o.completion_tokens) || num(o.output_tokens);
  const details = obj(o.prompt_tokens_details) ?? obj(o.input_tokens_details);
  const cached = Math.min(num(details?.cached_tokens), prompt);
  return { input: prompt - cached, output, cachedInput: cached, cacheWrite: 0 };
}

/** Messages `usage`: cache reads and writes are reported beside input_tokens, not inside. */
export function anthropicUsage(u: unknown): Usage | null {
  const o = obj(u);
  if (!o) return null;
  return {
    input: num(o.input_tokens),
    output: num(o.output_tokens),
    cachedInput: num(o.cache_read_input_tokens),
    cacheWrite: num(o.cache_creation_input_tokens),
  };
}

export type WireShape = "openai" | "anthropic";

/** Usage of a non-streamed response body (already parsed JSON). */
export function usageFromBody(shape: WireShape, body: unknown): Usage | null {
  const usage = obj(body)?.usage;
  return shape === "openai" ? openaiUsage(usage) : anthropicUsage(usage);
}

/**
 * Reads usage out of a server-sent-event stream as it passes, chunk by chunk, without holding
 * the stream: only an incomplete last line is kept. OpenAI sends usage in a final chunk when
 * asked with `stream_options.include_usage` (Responses: in `response.completed`); Anthropic
 * sends input counts in `message_start` and the cumulative output count in `message_delta`.
 */
export class SseUsageReader {
  private partial = "";
  private usage: Usage | null = null;
  /** The model the upstream says answered (may differ from the requested alias). */
  model: string | null = null;

  constructor(private readonly shape: WireShape) {}

  push(text: string): void {
    const lines = (this.partial + text).split("\n");
    this.partial = lines.pop() ?? "";
    for (const line of lines) this.line(line.replace(/\r$/, ""));
  }

  /** Usage seen so far (after the stream ended: the call's usage), null when none was sent. */
  result(): Usage | null {
    if (this.partial) {
      this.line(this.partial.replace(/\r$/, ""));
      this.partial = "";
    }
    return this.usage;
  }

  private line(line: string): void {
    if (!line.startsWith("data:")) return;
    const data = line.slice(5).trim();
    if (!data || data === "[DONE]") return;
    // Cheap pre-check: most chunks are text deltas without usage; skip parsing them.
    if (!data.includes('"usage"') && !data.includes('"model"')) return;
    let event: Json | null;
    try {
      event = obj(JSON.parse(data));
    } catch {
      return;
    }
    if (!event) return;
    if (this.shape === "openai") this.openai(event);
    else this.anthropic(event);
  }

  private openai(event: Json): void {
    if (typeof event.model === "string") this.model ??= event.model;
    const response = obj(event.response);
    if (response && typeof response.model === "string") this.model ??= response.model;
    const u = openaiUsage(event.usage) ?? (response ? openaiUsage(response.usage) : null);
    if (u) this.usage = u;
  }

  private anthropic(event: Json): void {
    if (event.type === "message_start") {
      const message = obj(event.message);
      if (typeof message?.model === "string") this.model ??= message.model;
      const u = anthropicUsage(message?.usage);
      if (u) this.usage = u;
    } else if (event.type === "message_delta") {
      const d = obj(event.usage);
      if (!d) return;
      const base = this.usage ?? NO_USAGE;
      // message_delta counts are cumulative; a field it omits keeps message_start's value.
      this.usage = {
        input: d.input_tokens === undefined ? base.input : num(d.input_tokens),
        output: d.output_tokens === undefined ? base.output : num(d.output_tokens),
        cachedInput:
          d.cache_read_input_tokens === undefined
            ? base.cachedInput
            : num(d.cache_read_input_tokens),
        cacheWrite:
          d.cache_creation_input_tokens === undefined
            ? base.cacheWrite
            : num(d.cache_creation_input_tokens),
      };
    }
  }
}
