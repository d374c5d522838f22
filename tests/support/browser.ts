import { type Browser, type BrowserServer, chromium } from "playwright-core";
import { inject } from "vitest";

/** Debian's Chromium, headless, without the background chatter that slows a cold start. */
const LAUNCH = {
  executablePath: "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
};

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's one Chromium (tests/global-setup.ts); empty when the setup launched none. */
    chromiumWsEndpoint: string;
  }
}

/** One Chromium for the whole run, started by the global setup; the browser tests connect to it. */
export function launchBrowserServer(): Promise<BrowserServer> {
  return chromium.launchServer(LAUNCH);
}

/**
 * The run's shared Chromium (each test file uses its own contexts, so nothing leaks between
 * files). A file run without the global browser (CLAWRUN_TEST_SKIP_NEXT_BUILD=1) launches its own.
 * close() only disconnects from a shared browser.
 */
export async function connectBrowser(): Promise<Browser> {
  const endpoint = inject("chromiumWsEndpoint");
  return endpoint ? chromium.connect(endpoint) : chromium.launch(LAUNCH);
}
