import { z } from "zod";

/** Epoch milliseconds, as every stored time is kept. */
export const epochMs = z.number().int().nonnegative();
