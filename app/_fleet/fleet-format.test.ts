import { expect, it } from "vitest";
import { formatSleepsIn } from "./fleet-format";

it("counts down to a running agent's sleep, and says nothing for the others", () => {
  expect(formatSleepsIn({ status: "running", activeUntil: 125_000 }, 5_000)).toBe(
    "sleeps in 2 min",
  );
  expect(formatSleepsIn({ status: "running", activeUntil: 5_000 }, 5_000)).toBe(
    "sleeps at the next heartbeat",
  );
  expect(formatSleepsIn({ status: "running", activeUntil: null }, 5_000)).toBe("—");
  expect(formatSleepsIn({ status: "sleeping", activeUntil: 125_000 }, 5_000)).toBe("—");
});
