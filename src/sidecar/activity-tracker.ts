import { isAbsolute, relative } from "node:path";
import { BoundedScanner } from "./activity-scan";
import type { Logger } from "./log-file";
import { WatchTree } from "./watch-tree";

/** Always housekeeping: the sidecar's own logs and the provisioning files. */
export const ALWAYS_IGNORED = ["logs", ".clawrun"];

/** Entries a fallback scan may visit per period: bounds its cost on a huge workspace. */
export const DEFAULT_MAX_SCAN_ENTRIES = 20_000;

export interface ActivityTrackerOptions {
  root: string;
  /** Paths relative to root (absolute paths under root are accepted too). */
  ignore: readonly string[];
  /** lastChangedAt before any change is seen (sandboxCreatedAt). */
  initial: number;
  fallbackScanMs: number;
  maxScanEntries?: number;
  log: Logger;
  now?: () => number;
  /** "scan" skips watching (tests and the benchmark exercise the fallback with it). */
  mode?: "watch" | "scan";
}

/** Normalises ignore entries to root-relative posix paths without slashes at either end. */
export function normalizeIgnore(root: string, paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const raw of paths) {
    let p = isAbsolute(raw) ? relative(root, raw) : raw;
    p = p
      .replace(/\\/g, "/")
      .replace(/^(\.\/)+/, "")
      .replace(/^\/+|\/+$/g, "");
    if (p === "" || p === "." || p === ".." || p.startsWith("../")) continue;
    out.add(p);
  }
  return [...out];
}

export function ignoreMatcher(ignored: readonly string[]): (rel: string) => boolean {
  return (rel) => ignored.some((p) => rel === p || rel.startsWith(`${p}/`));
}

/**
 * Tracks `lastChangedAt`: the epoch ms of the most recent create/write/delete/rename under
 * root outside the ignored paths. Watching (cost per event) is preferred; where it is not
 * available it falls back to a bounded periodic scan. It is never a walk per heartbeat.
 */
export class ActivityTracker {
  private last: number;
  private tree: WatchTree | null = null;
  private scanTimer: NodeJS.Timeout | null = null;
  private scanning = false;
  private stopped = false;
  private currentMode: "idle" | "watch" | "scan" = "idle";
  private readonly isIgnored: (rel: string) => boolean;
  private readonly now: () => number;

  constructor(private readonly opts: ActivityTrackerOptions) {
    this.last = opts.initial;
    this.now = opts.now ?? Date.now;
    this.isIgnored = ignoreMatcher(normalizeIgnore(opts.root, [...ALWAYS_IGNORED, ...opts.ignore]));
  }

  get lastChangedAt(): number {
    return this.last;
  }

  get mode(): "idle" | "watch" | "scan" {
    return this.currentMode;
  }

  /** Resolves once watching (or the fallback) is in place. */
  async start(): Promise<void> {
    if (this.opts.mode === "scan") return this.startScan("scan mode requested");
    const tree = new WatchTree({
      root: this.opts.root,
      isIgnored: this.isIgnored,
      onChange: () => this.touch(this.now()),
      onFailure: (err) => {
        if (this.tree !== tree) return;
        this.tree = null;
        void this.startScan(`watching failed (${describe(err)})`);
      },
    });
    this.tree = tree;
    this.currentMode = "watch";
    try {
      await tree.start();
      if (this.tree === tree) {
        this.opts.log.info(`activity: watching ${tree.size} directories under ${this.opts.root}`);
      }
    } catch (err) {
      tree.close();
      if (this.tree !== tree) return;
      this.tree = null;
      await this.startScan(`watching unavailable (${describe(err)})`);
    }
  }

  stop(): void {
    this.stopped = true;
    this.tree?.close();
    this.tree = null;
    if (this.scanTimer) clearInterval(this.scanTimer);
    this.scanTimer = null;
  }

  /**
   * Activity that is not a file change: a delivery through the door (docs/sidecar.md,
   * "Activity"). An agent mid-conversation may write nothing, yet it must not be put to sleep.
   */
  markActivity(at = this.now()): void {
    this.touch(at);
  }

  private touch(at: number): void {
    if (at > this.last) this.last = at;
  }

  private async startScan(why: string): Promise<void> {
    if (this.stopped || this.scanTimer) return;
    const max = this.opts.maxScanEntries ?? DEFAULT_MAX_SCAN_ENTRIES;
    this.currentMode = "scan";
    this.opts.log.warn(
      `activity: ${why}; scanning mtimes every ${this.opts.fallbackScanMs} ms, at most ${max} entries per scan`,
    );
    const scanner = new BoundedScanner(this.opts.root, this.isIgnored, max);
    const run = async (): Promise<void> => {
      if (this.scanning || this.stopped) return; // a slow disk must not stack scans
      this.scanning = true;
      try {
        const { newest } = await scanner.scan();
        // A file's mtime can lie in the future (clock skew, touch -d): never report past now.
        if (newest > 0) this.touch(Math.min(Math.floor(newest), this.now()));
      } catch (err) {
        this.opts.log.warn(`activity: scan failed: ${describe(err)}`);
      } finally {
        this.scanning = false;
      }
    };
    this.scanTimer = setInterval(() => void run(), this.opts.fallbackScanMs);
    await run();
  }
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.code ? `${e.code}: ${e.message}` : String(e?.message ?? err);
}
