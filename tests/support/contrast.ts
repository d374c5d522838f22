import type { Page } from "playwright-core";

/**
 * Text whose colour against its background is below WCAG AA's 4.5:1, as "ratio text (fg on
 * bg)" lines. Computed in the page from the rendered styles: every element with its own text,
 * its colour against the first opaque background up its ancestors (the page's when none).
 * Disabled controls are exempt (WCAG 1.4.3), as is text a stale page greys out on purpose.
 */
export function lowContrastText(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const parse = (c: string): [number, number, number, number] => {
      const m = c.match(/[\d.]+/g)?.map(Number) ?? [0, 0, 0, 1];
      return [m[0] ?? 0, m[1] ?? 0, m[2] ?? 0, m[3] ?? 1];
    };
    const lum = ([r, g, b]: number[]) => {
      const f = (v: number) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * f(r ?? 0) + 0.7152 * f(g ?? 0) + 0.0722 * f(b ?? 0);
    };
    const background = (el: Element | null): [number, number, number, number] => {
      for (let e = el; e; e = e.parentElement) {
        const bg = parse(getComputedStyle(e).backgroundColor);
        if (bg[3] > 0.5) return bg;
      }
      return parse(getComputedStyle(document.body).backgroundColor);
    };
    const out: string[] = [];
    for (const el of Array.from(document.querySelectorAll("body *"))) {
      const own = Array.from(el.childNodes).some(
        (n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? "").trim().length > 0,
      );
      if (!own || el.closest("[disabled], .stale, svg, option")) continue;
      const style = getComputedStyle(el);
      if (style.visibility === "hidden" || style.display === "none") continue;
      const rect = el.getBoundingClientRect();
      if (rect.width === 0 || rect.height === 0) continue;
      const fg = parse(style.color);
      const bg = background(el);
      // A translucent text colour is blended over its background first.
      const mixed = [0, 1, 2].map((i) => (fg[i] ?? 0) * fg[3] + (bg[i] ?? 0) * (1 - fg[3]));
      const [hi, lo] = [lum(mixed), lum(bg)].sort((a, b) => b - a) as [number, number];
      const ratio = (hi + 0.05) / (lo + 0.05);
      if (ratio < 4.5)
        out.push(
          `${ratio.toFixed(2)} "${(el.textContent ?? "").trim().slice(0, 40)}" (${style.color} on rgb(${bg.slice(0, 3).join(", ")}))`,
        );
    }
    return out;
  });
}
