// The SASS view: `ptx/sass` shown as a read-only document beside the PTX file, with links
// both ways (a SASS line's PTX line, a PTX line's SASS instructions).

import * as vscode from "vscode";
import { LanguageClient } from "vscode-languageclient/node";

import { SassAnswer, ptxLineOf, viewLinesOf, viewName } from "./sassLinks";

export const SCHEME = "ptx-sass";

interface View {
  answer: SassAnswer;
  source: vscode.Uri;
}

const views = new Map<string, View>();
const changed = new vscode.EventEmitter<vscode.Uri>();

/** Serves the text of the views. */
export const provider: vscode.TextDocumentContentProvider = {
  onDidChange: changed.event,
  provideTextDocumentContent(uri: vscode.Uri): string {
    return views.get(uri.toString())?.answer.text ?? "";
  },
};

/** Ctrl+click (go to definition) on a SASS line opens its PTX line. */
export const definitions: vscode.DefinitionProvider = {
  provideDefinition(document, position) {
    const view = views.get(document.uri.toString());
    const line = view && ptxLineOf(view.answer, position.line);
    if (!view || line === undefined) {
      return undefined;
    }
    return new vscode.Location(view.source, new vscode.Position(line, 0));
  },
};

function viewUri(source: vscode.Uri, kernel: string | undefined): vscode.Uri {
  return vscode.Uri.from({
    scheme: SCHEME,
    path: "/" + viewName(source.path, kernel),
    query: source.toString(),
    fragment: kernel ?? "",
  });
}

/**
 * `ptx.showSass`: from a resource lens (`{ textDocument: { uri }, kernel }`) or, without
 * arguments, for the whole active PTX file.
 */
export async function showSass(
  client: LanguageClient | undefined,
  args?: { textDocument?: { uri: string }; kernel?: string },
): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const uri = args?.textDocument?.uri ?? editor?.document.uri.toString();
  if (!client || !uri) {
    return;
  }
  const source = vscode.Uri.parse(uri);
  const answer = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: "ptxas + nvdisasm" },
    () =>
      client.sendRequest<SassAnswer>("ptx/sass", {
        textDocument: { uri },
        kernel: args?.kernel,
      }),
  );
  if (answer.error) {
    vscode.window.showWarningMessage(`SASS: ${answer.error}`);
    return;
  }
  const target = viewUri(source, args?.kernel);
  views.set(target.toString(), { answer, source });
  changed.fire(target);
  const document = await vscode.workspace.openTextDocument(target);
  await vscode.window.showTextDocument(document, {
    viewColumn: vscode.ViewColumn.Beside,
    preserveFocus: true,
    preview: false,
  });
}

/** In a SASS view: reveal the PTX line of the cursor's instruction. */
export async function goToPtx(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const view = editor && views.get(editor.document.uri.toString());
  const line = view && ptxLineOf(view.answer, editor.selection.active.line);
  if (!view || line === undefined) {
    return;
  }
  const target = await vscode.window.showTextDocument(view.source, {
    viewColumn: vscode.ViewColumn.One,
  });
  const at = new vscode.Position(line, 0);
  target.selection = new vscode.Selection(at, at);
  target.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenter);
}

/** In a PTX file: select the SASS instructions of the cursor's line in its open view. */
export async function goToSass(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    return;
  }
  const source = editor.document.uri.toString();
  const line = editor.selection.active.line;
  for (const [key, view] of views) {
    if (view.source.toString() !== source) {
      continue;
    }
    const lines = viewLinesOf(view.answer, line);
    if (lines.length === 0) {
      continue;
    }
    const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(key));
    const sass = await vscode.window.showTextDocument(document, {
      viewColumn: vscode.ViewColumn.Beside,
      preserveFocus: true,
    });
    sass.selections = lines.map(
      (l) => new vscode.Selection(new vscode.Position(l, 0), new vscode.Position(l, Number.MAX_SAFE_INTEGER)),
    );
    sass.revealRange(new vscode.Range(lines[0], 0, lines[0], 0), vscode.TextEditorRevealType.InCenter);
    return;
  }
  vscode.window.setStatusBarMessage("PTX: no SASS for this line (open the SASS view from a kernel's lens)", 5000);
}
