import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import "./globals.css";
import "./dashboard.css";

export const metadata: Metadata = {
  title: "ClawRun",
  description: "An always-reachable AI agent that costs nothing while it sleeps.",
};

// Every page is rendered per request: a page prerendered at build time would carry no
// nonce, and the Content-Security-Policy of proxy.ts would block its scripts.
export const dynamic = "force-dynamic";

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
