;;; test.el --- ptx-lsp in Emacs with Eglot, headless  -*- lexical-binding: t -*-
;; Run: PTX_LSP_PATH=target/debug/ptx-lsp emacs --batch -Q -l editors/emacs/test/test.el
;; with Debian's emacs and elpa-eglot. Checks what a person meets first: the server
;; attaches, publishes diagnostics, hovers in markdown, and completion after
;; `ld.global.` writes the qualifier once.

(require 'package)
(package-initialize)
(add-to-list 'load-path "/usr/share/emacs/site-lisp/elpa/eglot-1.9")
(require 'eglot)

(defvar ptx-test-failures 0)
(defun ptx-check (ok what)
  (if ok (message "ok: %s" what)
    (setq ptx-test-failures (1+ ptx-test-failures))
    (message "FAILED: %s" what)))

(define-derived-mode ptx-mode prog-mode "PTX"
  "Major mode for NVIDIA PTX."
  (setq-local comment-start "// ")
  (setq-local comment-start-skip "//+\\s-*"))
(add-to-list 'eglot-server-programs
             `(ptx-mode . (,(or (getenv "PTX_LSP_PATH") "ptx-lsp") "serve")))

(defun ptx-wait (what pred &optional seconds)
  "Wait until PRED holds (or SECONDS pass), letting the server's messages in."
  (let ((deadline (+ (float-time) (or seconds 30))))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.1))
    (ptx-check (funcall pred) what)))

(let* ((dir (make-temp-file "ptx-eglot" t))
       (file (expand-file-name "k.ptx" dir)))
  (with-temp-file file
    (insert ".version 8.0\n.target sm_90\n.address_size 64\n"
            ".visible .entry k(.param .u64 p)\n{\n"
            "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n"
            "\tld.param.u64 %rd1, [p];\n"
            "\tadd.s32 %r1, %r2;\n"
            "\tret;\n}\n"))
  (find-file file)
  (ptx-mode)
  ;; What `eglot-ensure' does once Emacs is idle (batch Emacs never is).
  (apply #'eglot (eglot--guess-contact))
  (ptx-wait "the server attaches" (lambda () (eglot-current-server)))
  (ptx-wait "diagnostics for the bad add"
            (lambda () (cl-some (lambda (d) (string-match-p "add" (flymake-diagnostic-text d)))
                                (flymake-diagnostics))))
  ;; Hover on `ld`: markdown with the opcode's name.
  (goto-char (point-min))
  (search-forward "\tld.")
  (backward-char 2)
  (let* ((server (eglot-current-server))
         (hover (jsonrpc-request server :textDocument/hover
                                 (eglot--TextDocumentPositionParams))))
    (ptx-check (and hover (string-match-p "\\*\\*ld\\*\\*"
                                          (plist-get (plist-get hover :contents) :value)))
               "hover on ld is markdown naming it"))
  ;; Completion after `ld.global.` and after `ld.global.c`: the chosen item is written
  ;; once (no `ld.global..`).
  (dolist (case '(("\tld.global." "L2::cache_hint") ("\tld.global.c" "cg")))
    (goto-char (point-min))
    (search-forward "\tret;")
    (beginning-of-line)
    (insert (car case) "\n")
    (backward-char 1)
    (let* ((capf (eglot-completion-at-point))
           (start (nth 0 capf)) (end (nth 1 capf)) (table (nth 2 capf))
           (props (nthcdr 3 capf))
           (candidates (all-completions (buffer-substring-no-properties start end) table))
           (choice (car (member (cadr case) candidates))))
      (ptx-check choice (format "completion after %S offers %s" (car case) (cadr case)))
      (when choice
        ;; What completion-at-point does on a choice: replace the prefix, then exit.
        (delete-region start end)
        (goto-char start)
        (insert choice)
        (funcall (plist-get props :exit-function) choice 'finished)
        (let ((line (buffer-substring-no-properties (line-beginning-position)
                                                    (line-end-position))))
          (ptx-check (string= line (concat "\tld.global." (cadr case)))
                     (format "the completion is written once: %S" line))))
      (delete-region (line-beginning-position) (1+ (line-end-position)))))
  (let ((kinds (mapcar (lambda (c) (plist-get (get-text-property 0 'eglot--lsp-item c) :kind))
                       (all-completions "" (nth 2 (progn (goto-char (line-end-position))
                                                         (insert "\n\tld.")
                                                         (eglot-completion-at-point)))))))
    (ptx-check (> (length (delete-dups kinds)) 1)
               (format "completion items have several kinds: %S" (delete-dups kinds))))
  (set-buffer-modified-p nil)
  (ignore-errors (eglot-shutdown (eglot-current-server)))
  (message "%d failed" ptx-test-failures)
  (kill-emacs (if (= ptx-test-failures 0) 0 1)))
