"use client";

import { useEffect, useState } from "react";

/** The server's "now", ticking every second so ages move between polls. */
export function useNow(skewMs: number): number {
  const [local, setLocal] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setLocal(Date.now()), 1_000);
    return () => clearInterval(id);
  }, []);
  return local + skewMs;
}
