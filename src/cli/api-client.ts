import type { z } from "zod";
import type { CliTarget } from "../config/cli-env";
import { signatureHeaders } from "../protocol/signing";
import { agentApiPath, genericWebhookPath } from "./agent-route";
import { apiErrorSchema } from "./api-schemas";
import { CliError, EXIT } from "./exit-codes";
import { type HttpAnswer, httpText } from "./http-text";

/**
 * The operator API over HTTP (docs/api.md) with the bearer secret, and the signed generic
 * webhook for `send`. Every failure becomes a CliError with a message naming the URL and
 * what to do, and the exit code of docs/cli.md (3: not reachable or credentials refused).
 * With an agent named (--agent, CLAWRUN_AGENT) every operator path and the webhook are that
 * agent's (agent-route.ts), so the commands name the plain routes only.
 */

const DEFAULT_TIMEOUT_MS = 30_000;
/** The code of a 404 that is not ClawRun's: the route does not exist on that server. */
const NOT_A_CLAWRUN_404 = "no_such_route";

export interface Answer<T> {
  status: number;
  body: T;
}

export interface ApiClientOptions {
  /** The deployment's agent to speak to; null: the default one (the plain routes). */
  agent?: string | null;
  timeoutMs?: number;
  /** Aborted on Ctrl-C: the request in flight ends with CliError "interrupted". */
  interrupt?: AbortSignal;
}

export class ApiClient {
  private readonly timeoutMs: number;
  private readonly interrupt?: AbortSignal;
  readonly agent: string | null;

  constructor(
    private readonly target: CliTarget,
    options: ApiClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.interrupt = options.interrupt;
    this.agent = options.agent ?? null;
  }

  get url(): string {
    return this.target.url;
  }

  /** The URL and, when one is named, the agent: for messages ("following …"). */
  get where(): string {
    return this.agent === null ? this.target.url : `${this.target.url}, agent ${this.agent}`;
  }

  get<T>(path: string, schema: z.ZodType<T>): Promise<T> {
    return this.operator("GET", path, schema).then((a) => a.body);
  }

  /**
   * GET a route an older server may not have: its 404 (Next's own page, no ClawRun error)
   * answers null instead of failing, so a command can fall back to what that server knows.
   */
  async getIfPresent<T>(path: string, schema: z.ZodType<T>): Promise<T | null> {
    try {
      return await this.get(path, schema);
    } catch (err) {
      if (err instanceof CliError && err.code === NOT_A_CLAWRUN_404) return null;
      throw err;
    }
  }

  /** `answers`: error statuses whose body is still an answer of `schema` (e.g. 502 "the platform refused"). */
  post<T>(
    path: string,
    schema: z.ZodType<T>,
    body?: unknown,
    answers: readonly number[] = [],
    /** For a request that works for minutes (e.g. `agent prepare`); default 30 s. */
    timeoutMs?: number,
  ): Promise<Answer<T>> {
    return this.operator("POST", path, schema, body, answers, timeoutMs);
  }

  delete<T>(path: string, schema: z.ZodType<T>): Promise<Answer<T>> {
    return this.operator("DELETE", path, schema);
  }

  /** POST /api/webhooks/generic signed with CLAWRUN_WEBHOOK_SECRET, as any sender would. */
  async webhook<T>(body: unknown, schema: z.ZodType<T>, timeoutMs: number): Promise<Answer<T>> {
    const secret = this.target.webhookSecret;
    if (!secret) {
      throw new CliError(
        EXIT.unreachable,
        `no webhook secret: set CLAWRUN_WEBHOOK_SECRET, or run where a local ClawRun keeps ${this.target.secretsFile}`,
        "no_secret",
      );
    }
    const raw = JSON.stringify(body);
    const headers = { "content-type": "application/json", ...signatureHeaders(secret, raw) };
    const path = genericWebhookPath(this.agent);
    return this.request("POST", path, schema, headers, raw, timeoutMs);
  }

  private operator<T>(
    method: string,
    path: string,
    schema: z.ZodType<T>,
    body?: unknown,
    answers: readonly number[] = [],
    timeoutMs = this.timeoutMs,
  ): Promise<Answer<T>> {
    const secret = this.target.adminSecret;
    if (!secret) {
      throw new CliError(
        EXIT.unreachable,
        `no operator secret: set ADMIN_SECRET, or run in the project directory of a local ClawRun (looked in ${this.target.secretsFile})`,
        "no_secret",
      );
    }
    const headers: Record<string, string> = { authorization: `Bearer ${secret}` };
    let raw: string | undefined;
    if (body !== undefined) {
      raw = JSON.stringify(body);
      headers["content-type"] = "application/json";
    }
    const routed = agentApiPath(path, this.agent);
    return this.request(method, routed, schema, headers, raw, timeoutMs, answers);
  }

  private async request<T>(
    method: string,
    path: string,
    schema: z.ZodType<T>,
    headers: Record<string, string>,
    raw: string | undefined,
    timeoutMs: number,
    answers: readonly number[] = [],
  ): Promise<Answer<T>> {
    const where = `${this.target.url} (from ${this.target.urlSource})`;
    const timeout = AbortSignal.timeout(timeoutMs);
    // Ctrl-C ends a request at once (e.g. `send` waiting on a slow agent).
    const signal = this.interrupt ? AbortSignal.any([timeout, this.interrupt]) : timeout;
    const failed = (err: unknown) =>
      this.interrupt?.aborted ? "" : timeout.aborted ? "no answer in time" : why(err);
    let res: HttpAnswer;
    try {
      res = await httpText(`${this.target.url}${path}`, { method, headers, body: raw, signal });
    } catch (err) {
      const reason = failed(err);
      if (!reason) throw interrupted();
      throw new CliError(
        EXIT.unreachable,
        `cannot reach ClawRun at ${where}: ${reason}`,
        "unreachable",
      );
    }
    let text: string;
    try {
      text = await res.text;
    } catch (err) {
      // Ctrl-C (or the timeout) can land while the body is still arriving.
      const reason = failed(err);
      if (!reason) throw interrupted();
      throw new CliError(
        EXIT.unreachable,
        `the answer from ${where} broke off: ${reason}`,
        "unreachable",
      );
    }
    const json = parseJson(text);
    if (res.status === 401) {
      const error = apiErrorSchema.safeParse(json);
      const message = error.success ? error.data.error.message : `HTTP 401`;
      throw new CliError(
        EXIT.unreachable,
        `${where} refused the credentials: ${message}`,
        error.success ? error.data.error.code : "unauthenticated",
      );
    }
    if ((res.status < 200 || res.status >= 300) && !answers.includes(res.status)) {
      const error = apiErrorSchema.safeParse(json);
      if (error.success) {
        throw new CliError(EXIT.failure, error.data.error.message, error.data.error.code);
      }
      if (res.status === 404) {
        // No route at all: a server from before that route (or before several agents).
        const question =
          this.agent === null
            ? `is ${where} a ClawRun deployment of this CLI's version?`
            : `does ${where} run a ClawRun that knows several agents (--agent needs one)?`;
        throw new CliError(
          EXIT.failure,
          `${method} ${path} answered HTTP 404 without a ClawRun error (${question})`,
          NOT_A_CLAWRUN_404,
        );
      }
      throw new CliError(
        EXIT.failure,
        `${method} ${path} answered HTTP ${res.status} without a ClawRun error (is ${where} a ClawRun deployment?)`,
        "unexpected_answer",
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new CliError(
        EXIT.failure,
        `${method} ${path} answered something this CLI does not understand (${parsed.error.issues[0]?.path.join(".") || "body"}: ${parsed.error.issues[0]?.message}); is the CLI the same version as ${where}?`,
        "unexpected_answer",
      );
    }
    return { status: res.status, body: parsed.data };
  }
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}

export function interrupted(): CliError {
  return new CliError(EXIT.failure, "interrupted", "interrupted");
}

/** The socket's code (ECONNREFUSED, ENOTFOUND, …) says what happened better than its message. */
function why(err: unknown): string {
  const e = err as Error & { code?: string };
  return e.code ?? e.message;
}
