"use client";

import { type ReactNode, useCallback, useEffect, useRef, useState } from "react";

export interface ConfirmRequest {
  title: string;
  body: ReactNode;
  confirmLabel: string;
}

interface Pending extends ConfirmRequest {
  resolve(ok: boolean): void;
}

/**
 * A promise-returning confirmation backed by a native modal <dialog>: focus is trapped and
 * returned by the browser, Escape cancels, and Cancel is focused first so Enter is safe.
 */
export function useConfirm(): {
  confirm(request: ConfirmRequest): Promise<boolean>;
  dialog: ReactNode;
} {
  const [pending, setPending] = useState<Pending | null>(null);
  const trigger = useRef<HTMLElement | null>(null);
  const confirm = useCallback((request: ConfirmRequest) => {
    trigger.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    return new Promise<boolean>((resolve) => setPending({ ...request, resolve }));
  }, []);
  const done = useCallback(
    (ok: boolean) => {
      pending?.resolve(ok);
      setPending(null);
      // Back to the button that opened the dialog (the browser does not always: React may
      // have re-rendered it); if it is gone or disabled now, to the status line.
      const back = trigger.current;
      setTimeout(() => {
        if (back?.isConnected && !(back as HTMLButtonElement).disabled) back.focus();
        else document.getElementById("top-line")?.focus();
      }, 0);
    },
    [pending],
  );
  return { confirm, dialog: <ConfirmDialog pending={pending} onDone={done} /> };
}

function ConfirmDialog({
  pending,
  onDone,
}: {
  pending: Pending | null;
  onDone(ok: boolean): void;
}) {
  const ref = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (pending && !dialog.open) {
      dialog.returnValue = "";
      dialog.showModal();
    } else if (!pending && dialog.open) dialog.close();
  }, [pending]);

  return (
    <dialog
      ref={ref}
      className="confirm"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-body"
      data-testid="confirm-dialog"
      onClose={(e) => onDone(e.currentTarget.returnValue === "confirm")}
    >
      {/* method="dialog": either button closes the dialog and leaves its value in returnValue. */}
      <form method="dialog">
        <h2 id="confirm-title">{pending?.title}</h2>
        <div id="confirm-body">{pending?.body}</div>
        <div className="row end">
          <button type="submit" value="cancel" className="secondary">
            Cancel
          </button>
          <button type="submit" value="confirm" className="danger" data-testid="confirm-ok">
            {pending?.confirmLabel ?? "Confirm"}
          </button>
        </div>
      </form>
    </dialog>
  );
}
