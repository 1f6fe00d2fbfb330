// Request bookkeeping for cancellation: `cancel(id)` marks a request, and a newer request on the
// same channel supersedes the older one (docs/style.md point 9: the latest request wins). The work loop
// calls `ticket.check()` between ONNX Runtime runs; a run already started finishes first.
import { CancelledError } from './errors.ts';

export class Ticket {
  private reason: CancelledError['reason'] | null = null;

  constructor(
    readonly id: string,
    readonly channel: string | undefined,
    private readonly onClose: (t: Ticket) => void,
  ) {}

  cancel(reason: CancelledError['reason']): void {
    this.reason ??= reason;
  }

  get cancelled(): boolean {
    return this.reason !== null;
  }

  /** Throws CancelledError when the request was cancelled, superseded, or its engine disposed. */
  check(): void {
    if (!this.reason) return;
    const why = {
      cancelled: 'was cancelled',
      superseded: `was superseded by a newer request on channel "${this.channel}"`,
      disposed: 'was stopped because the engine was disposed',
    }[this.reason];
    throw new CancelledError(this.id, this.reason, `request "${this.id}" ${why}`);
  }

  close(): void {
    this.onClose(this);
  }
}

export class RequestTracker {
  private readonly live = new Map<string, Ticket>();
  private readonly channels = new Map<string, Ticket>();
  private counter = 0;

  /** Starts tracking a request; an older live request on the same channel is superseded. */
  open(id: string | undefined, channel: string | undefined): Ticket {
    const ticket = new Ticket(id ?? `request-${++this.counter}`, channel, (t) => this.forget(t));
    if (channel !== undefined) {
      this.channels.get(channel)?.cancel('superseded');
      this.channels.set(channel, ticket);
    }
    this.live.set(ticket.id, ticket);
    return ticket;
  }

  /** True when a live request had this id. */
  cancel(id: string): boolean {
    const t = this.live.get(id);
    t?.cancel('cancelled');
    return !!t;
  }

  cancelAll(reason: CancelledError['reason']): void {
    for (const t of this.live.values()) t.cancel(reason);
  }

  private forget(t: Ticket): void {
    if (this.live.get(t.id) === t) this.live.delete(t.id);
    if (t.channel !== undefined && this.channels.get(t.channel) === t) this.channels.delete(t.channel);
  }
}
