import type { FleetRow } from "@/src/server/dashboard/fleet";

export type SortKey =
  | "name"
  | "status"
  | "since"
  | "activeUntil"
  | "reason"
  | "pending"
  | "failed"
  | "awakeTodayMs";
export type SortDir = "asc" | "desc";
export interface Sort {
  key: SortKey;
  dir: SortDir;
}

/** The fleet's own order (clawrun.json's) until the operator picks a column. */
export const FILE_ORDER: Sort | null = null;

/**
 * Pure: the rows ordered by one column. Missing values (no forecast yet) go last in either
 * direction; equal values keep the name order, so a live update never shuffles ties.
 */
export function sortRows(rows: readonly FleetRow[], sort: Sort | null): FleetRow[] {
  if (!sort) return [...rows];
  const sign = sort.dir === "asc" ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = a[sort.key];
    const y = b[sort.key];
    if (x === null && y !== null) return 1;
    if (y === null && x !== null) return -1;
    const byKey =
      x === null || y === null
        ? 0
        : typeof x === "string" && typeof y === "string"
          ? x.localeCompare(y)
          : Number(x) - Number(y);
    return byKey !== 0 ? sign * byKey : a.name.localeCompare(b.name);
  });
}

/** Pure: the sort after clicking a column: a new column ascending, the same one flipped. */
export function nextSort(current: Sort | null, key: SortKey): Sort {
  if (current?.key === key) return { key, dir: current.dir === "asc" ? "desc" : "asc" };
  return { key, dir: "asc" };
}
