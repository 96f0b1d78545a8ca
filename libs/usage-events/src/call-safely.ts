/** Runs a caller's callback where a throw must not escape (the request path, a timer). */
export function callSafely(call: () => void): void {
  try {
    call();
  } catch {
    // nothing left to report to
  }
}
