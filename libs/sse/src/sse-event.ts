/** One server-sent event as parsed from the wire: the `event:` name (if any) and the joined `data:` lines. */
export interface SseEvent {
  event?: string | undefined;
  data: string;
}
