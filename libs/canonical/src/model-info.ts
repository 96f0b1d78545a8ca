/** What the catalog knows of a public model, enough to render any format's model list. */
export interface ModelInfo {
  /** Public model name. */
  id: string;
  /** Unix seconds. */
  created: number;
  ownedBy: string;
  displayName?: string;
  description?: string;
  maxInputTokens?: number;
  maxOutputTokens?: number;
  kind: 'chat' | 'embedding';
}
