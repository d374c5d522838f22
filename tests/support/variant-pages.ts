import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { watch } from "./dashboard-page";

type StorageState = Awaited<ReturnType<BrowserContext["storageState"]>>;

export interface Variant {
  page: Page;
  /** e.g. "desktop-dark", for screenshot names and failure messages. */
  name: string;
  /** What went wrong in this page since it was opened (console errors, 5xx, failed requests). */
  problems: string[];
}

/**
 * The same dashboard state at two widths, light and dark, for the browser walks' screenshots
 * and layout checks. One signed-in page per width is kept for the whole walk and reloaded for
 * each state; dark is the same page with `prefers-color-scheme` switched, which the styles
 * follow live (app/globals.css). A new browser context per variant and state cost ~1.5 s each
 * (an empty cache, every script fetched and compiled again): 16 of them were 40 of the live
 * walk's 52 s.
 */
export class VariantPages {
  private constructor(
    private readonly widths: {
      name: string;
      context: BrowserContext;
      page: Page;
      problems: string[];
    }[],
  ) {}

  static async open(
    browser: Browser,
    storageState: StorageState,
    widths: Record<string, BrowserContextOptions>,
  ): Promise<VariantPages> {
    const opened = [];
    for (const [name, options] of Object.entries(widths)) {
      const context = await browser.newContext({ storageState, ...options });
      const page = await context.newPage();
      opened.push({ name, context, page, problems: watch(page) });
    }
    return new VariantPages(opened);
  }

  /**
   * Loads `url` at each width, waits for `ready`, then calls `look` in light and in dark.
   * `schemes` narrows the colour schemes (e.g. only dark where light is the main page).
   */
  async each(
    url: string,
    ready: (page: Page) => Promise<void>,
    look: (v: Variant) => Promise<void>,
    schemes: readonly ("light" | "dark")[] = ["light", "dark"],
  ): Promise<void> {
    for (const w of this.widths) {
      await w.page.emulateMedia({ colorScheme: schemes[0] });
      await w.page.goto(url);
      await ready(w.page);
      for (const scheme of schemes) {
        await w.page.emulateMedia({ colorScheme: scheme });
        await look({ page: w.page, name: `${w.name}-${scheme}`, problems: w.problems });
      }
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.widths.map((w) => w.context.close()));
  }
}
