import { readFileSync } from "node:fs";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Test files that need the production server (or its build) run after those that do not, so
 * the run's build (started in the background by tests/global-setup.ts) overlaps with the
 * tests that need none, instead of every worker waiting for it. Within each group vitest's own
 * order stands (slowest first from its cache, else largest first).
 */
const NEEDS_BUILD = /\b(startClawrun|connectBrowser|waitForNextBuild)\b/;

export default class ServerLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const needsBuild = (spec: TestSpecification) =>
      NEEDS_BUILD.test(readFileSync(spec.moduleId, "utf8"));
    return [
      ...ordered.filter((spec) => !needsBuild(spec)),
      ...ordered.filter((spec) => needsBuild(spec)),
    ];
  }
}
