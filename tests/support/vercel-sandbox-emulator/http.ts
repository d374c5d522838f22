import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import { ClawrunError } from "../../../src/protocol/clawrun-error";
import { type SdkSchemaName, sdk } from "./sdk-schemas";

/**
 * The emulator's HTTP plumbing: routing by method and path, the API's error body
 * `{ "error": { "code", "message" } }` (what the SDK's APIError reads), checking every JSON
 * answer against the SDK's own schema, and recording requests it does not know.
 */

/** A failure answered in the API's error shape. */
export class EmulatedError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new EmulatedError(404, "not_found", `${what} not found`);
export const badRequest = (message: string) => new EmulatedError(400, "bad_request", message);
export const forbidden = (message: string) => new EmulatedError(403, "forbidden", message);

/** A request the emulator could not serve as the real API would: a test asserts there are none. */
export interface UnknownRequest {
  method: string;
  path: string;
  reason: string;
}

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
  /** Query string as an object, checked with `schema` (strict) or recorded as unknown. */
  query<T>(schema: z.ZodType<T>): T;
  /** JSON body checked with `schema` (strict); an empty body is `{}`. */
  json<T>(schema: z.ZodType<T>): Promise<T>;
  body(): Promise<Buffer>;
  /** Sends JSON after checking it with the SDK's schema for this answer. */
  send(status: number, schema: SdkSchemaName, body: unknown): void;
  /** Records this request as one the emulator does not know, and answers 400. */
  unknown(reason: string): never;
}

export type Handler = (ctx: RequestContext) => Promise<void>;

interface Route {
  method: string;
  pattern: RegExp;
  keys: string[];
  handler: Handler;
}

const MAX_BODY = 256 * 1024 * 1024;

export class Router {
  private readonly routes: Route[] = [];
  readonly unknown: UnknownRequest[] = [];
  /** Answers the emulator itself got wrong (failed the SDK's schema): always a bug to fix. */
  readonly faults: string[] = [];

  /** `path` like "/v2/sandboxes/:name"; earlier routes win. */
  add(method: string, path: string, handler: Handler): void {
    const keys: string[] = [];
    const source = path.replace(/:([a-zA-Z]+)/g, (_, key: string) => {
      keys.push(key);
      return "([^/]+)";
    });
    this.routes.push({ method, pattern: new RegExp(`^${source}$`), keys, handler });
  }

  private record(req: IncomingMessage, url: URL, reason: string): void {
    this.unknown.push({ method: req.method ?? "?", path: url.pathname, reason });
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://emulator");
    const route = this.routes.find((r) => r.method === req.method && r.pattern.test(url.pathname));
    if (!route) {
      this.record(req, url, "no such route");
      // 400, not 404: a 404 would read as "sandbox not found" to the SDK.
      return sendError(res, badRequest(`emulator: unknown request ${req.method} ${url.pathname}`));
    }
    const match = route.pattern.exec(url.pathname) as RegExpExecArray;
    const params = Object.fromEntries(
      route.keys.map((k, i) => [k, decodeURIComponent(match[i + 1] as string)]),
    );
    let bodyPromise: Promise<Buffer> | null = null;
    const body = () => {
      bodyPromise ??= readBody(req);
      return bodyPromise;
    };
    const check = <T>(schema: z.ZodType<T>, value: unknown, what: string): T => {
      const parsed = schema.safeParse(value);
      if (parsed.success) return parsed.data;
      const reason = `${what}: ${parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}`;
      this.record(req, url, reason);
      throw badRequest(`emulator: ${reason}`);
    };
    const ctx: RequestContext = {
      req,
      res,
      url,
      params,
      query: (schema) => check(schema, Object.fromEntries(url.searchParams), "query"),
      json: async (schema) => {
        const raw = (await body()).toString("utf8");
        let value: unknown;
        try {
          value = raw.trim() === "" ? {} : JSON.parse(raw);
        } catch {
          throw badRequest("emulator: body is not JSON");
        }
        return check(schema, value, "body");
      },
      body,
      unknown: (reason) => {
        this.record(req, url, reason);
        throw badRequest(`emulator: unknown request ${req.method} ${url.pathname}: ${reason}`);
      },
      send: (status, schemaName, payload) => {
        const parsed = sdk[schemaName].safeParse(payload);
        if (!parsed.success) {
          this.faults.push(`${req.method} ${url.pathname}: ${schemaName}: ${parsed.error.message}`);
          throw new EmulatedError(400, "emulator_fault", `emulator answer failed ${schemaName}`);
        }
        sendJson(res, status, payload);
      },
    };
    try {
      await route.handler(ctx);
    } catch (err) {
      if (res.headersSent) {
        res.destroy(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      if (err instanceof EmulatedError) return sendError(res, err);
      // The backing local sandbox refused (e.g. it expired a moment ago): the API's 400.
      if (err instanceof ClawrunError) return sendError(res, badRequest(err.message));
      this.faults.push(`${req.method} ${url.pathname}: ${err instanceof Error ? err.stack : err}`);
      sendError(res, new EmulatedError(400, "emulator_fault", String(err)));
    }
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendError(res: ServerResponse, err: EmulatedError): void {
  sendJson(res, err.status, { error: { code: err.code, message: err.message } });
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) req.destroy(new Error("body too large"));
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Starts an ndjson answer (the SDK requires exactly this content type). */
export function startNdjson(res: ServerResponse): (line: unknown) => void {
  res.writeHead(200, { "content-type": "application/x-ndjson" });
  return (line) => {
    res.write(`${JSON.stringify(line)}\n`);
  };
}
