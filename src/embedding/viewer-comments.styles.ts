/**
 * The rules of the viewer page's comments panel (viewer-client/comments-panel.ts), added to the
 * page's own when the page offers comments. The panel box takes the dashboard theme's widget look
 * (it carries `.eb-widget`); its controls look like the filter controls' (`.eb-form`).
 */
export const COMMENTS_PANEL_CSS = `
.eb-comments-bar{display:flex;justify-content:flex-end;padding:0 16px 16px}
.eb-comments{display:flex;flex-direction:column;gap:10px;overflow:visible;margin:0 16px 16px;font-size:13px;line-height:1.4}
.eb-comments button,.eb-comments input,.eb-comments textarea,.eb-comments-toggle{font:inherit;font-size:13px;color:inherit;border:1px solid rgba(0,0,0,.3);border-radius:6px;padding:4px 10px;background:rgba(255,255,255,.85)}
.eb-comments button,.eb-comments-toggle{cursor:pointer;white-space:nowrap}
.eb-comments-toggle{font-weight:600;padding:6px 14px;border-radius:999px}
.eb-comments button:disabled{opacity:.6;cursor:progress}
.eb-comments :focus-visible,.eb-comments-toggle:focus-visible{outline:2px solid #2563eb;outline-offset:1px}
.eb-comments .eb-primary{font-weight:600}
.eb-comments .eb-danger{border-color:#b91c1c;color:#b91c1c}
.eb-comments-head{display:flex;flex-wrap:wrap;align-items:center;gap:8px 16px}
.eb-comments-title{margin:0;font-size:15px;flex:1 1 auto}
.eb-comments-check{display:inline-flex;align-items:center;gap:6px}
.eb-comments-error{margin:0;padding:6px 10px;border:1px solid #b91c1c;border-radius:6px;color:#b91c1c;background:rgba(254,226,226,.85)}
.eb-comments-note,.eb-comments-empty,.eb-mention-found{margin:0;opacity:.75}
.eb-mention-found:empty{display:none}
.eb-comment-form{display:flex;flex-direction:column;gap:6px}
.eb-comment-form textarea{width:100%;min-height:4.5em;resize:vertical}
.eb-comment-form-row{display:flex;flex-wrap:wrap;gap:6px;justify-content:flex-end}
.eb-comment-form-row button:first-child{margin-right:auto}
.eb-mention-picker{display:flex;flex-direction:column;gap:4px;max-width:24em}
.eb-mention-options{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:2px;max-height:12em;overflow:auto}
.eb-comments .eb-mention-option{width:100%;text-align:left;border-color:transparent;overflow:hidden;text-overflow:ellipsis}
.eb-comments .eb-mention-option:hover{border-color:rgba(0,0,0,.3)}
.eb-mention-detail{opacity:.7}
.eb-threads,.eb-replies{list-style:none;margin:0;padding:0}
.eb-threads[aria-busy=true]{opacity:.6}
.eb-thread{padding:10px 0;border-top:1px solid rgba(0,0,0,.1);display:flex;flex-direction:column;gap:6px;align-items:flex-start}
.eb-thread>*{align-self:stretch}
.eb-thread>.eb-thread-reply{align-self:flex-start}
.eb-thread--resolved>.eb-comment{opacity:.8}
.eb-replies{margin-left:12px;padding-left:12px;border-left:2px solid rgba(0,0,0,.12);display:flex;flex-direction:column;gap:8px}
.eb-comment{display:flex;flex-direction:column;gap:2px}
.eb-comment-meta{margin:0;font-size:12px;opacity:.8}
.eb-comment-author{font-weight:600}
.eb-comment-edited{font-style:italic}
.eb-badge{display:inline-block;font-size:11px;border:1px solid;border-radius:999px;padding:0 6px}
.eb-comment-body{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
.eb-comment-body--removed{font-style:italic;opacity:.7}
.eb-mention{font-weight:600}
.eb-comment-actions{display:flex;flex-wrap:wrap;align-items:center;gap:6px}
.eb-comment-actions button{padding:2px 8px;font-size:12px}
.eb-comment-question{font-size:12px}`;
