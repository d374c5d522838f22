"use client";

import { createContext, type ReactNode, useCallback, useContext } from "react";
import { agentApiPath } from "./agent-path";

/**
 * Which agent this dashboard shows (null: the default agent, plain routes). Every operator API
 * path a panel uses goes through `useApiPath`, so one page serves any agent of the fleet.
 */
const AgentName = createContext<string | null>(null);

export function AgentProvider({ agent, children }: { agent: string | null; children: ReactNode }) {
  return <AgentName.Provider value={agent}>{children}</AgentName.Provider>;
}

export function useAgentName(): string | null {
  return useContext(AgentName);
}

/** `/api/sandbox/…` as this dashboard's agent reaches it. */
export function useApiPath(): (path: string) => string {
  const agent = useContext(AgentName);
  return useCallback((path: string) => agentApiPath(agent, path), [agent]);
}
