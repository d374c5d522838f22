import { describe, expect, it } from "vitest";
import { OpenDeliveries } from "./open-deliveries";

describe("OpenDeliveries", () => {
  it("reports the oldest open delivery's start, and none once all have ended", () => {
    let t = 1_000;
    const open = new OpenDeliveries(() => t);
    expect(open.oldestSince()).toBeNull();
    const endFirst = open.begin();
    t = 2_000;
    const endSecond = open.begin();
    expect(open.oldestSince()).toBe(1_000);
    endFirst();
    endFirst(); // ending twice changes nothing
    expect(open.oldestSince()).toBe(2_000);
    endSecond();
    expect(open.oldestSince()).toBeNull();
  });
});
