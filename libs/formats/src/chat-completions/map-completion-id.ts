/**
 * Chat answers carry a `chatcmpl-` id. Keep an upstream's own chat id; prefix any other
 * (`msg_…`, `resp_…`), so the client can still quote the upstream id in a support request.
 */
export function mapCompletionId(id: string, requestId: string): string {
  if (id === '') return `chatcmpl-${requestId}`;
  return id.startsWith('chatcmpl-') ? id : `chatcmpl-${id}`;
}
