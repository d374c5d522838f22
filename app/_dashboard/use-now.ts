"use client";

import { useEffect, useState } from "react";

/**
 * The server's "now", ticking every second so ages move between pushes. `frozenAt` stops the
 * clock (the page is stale: ages must not keep counting as if the data were live).
 */
export function useNow(skewMs: number, frozenAt?: number): number {
  const [local, setLocal] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setLocal(Date.now()), 1_000);
    return () => clearInterval(id);
  }, []);
  return (frozenAt ?? local) + skewMs;
}
