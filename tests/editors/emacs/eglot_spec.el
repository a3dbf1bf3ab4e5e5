;;; eglot_spec.el --- drive dsh-lsp from a real Emacs + eglot in batch mode -*- lexical-binding: t -*-

;; Run as `emacs --batch -Q -l eglot_spec.el' by tests/editors/emacs/test_eglot.py, which
;; provides $DSH_SERVER_CMD (JSON list), $DSH_MODEL_URL, $DSH_WS (notes.txt = alpha/beta/gamma),
;; $DSH_SESSION_DIR, $DSH_OUT (the results file) and $DSH_CASE.  eglot is the stock package
;; (Debian's elpa-eglot): nothing here knows dsh beyond the README's setup.  The user's
;; answers are given where Emacs would ask them: `completing-read' (eglot's
;; showMessageRequest and code-action pickers) picks the wanted entry and records its prompt.
;; Emacs in batch mode is never idle, so eglot's idle timer never sends the didChange of an
;; agent edit: the server must trust eglot's `applied: t' (the slow client of item 2).

;; `-Q' skips site-start, which puts Debian's elpa packages on the load path.
(dolist (dir (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/*"))
  (add-to-list 'load-path dir))
(require 'eglot)
(require 'json)
(require 'cl-lib)

(defvar dsh-results (list :checks nil :data nil))
(defvar dsh-notes nil "window/showMessage and logMessage texts, oldest first.")
(defvar dsh-asked nil "The prompts `completing-read' was given.")
(defvar dsh-pick nil "A function (PROMPT COLLECTION) -> the entry to pick.")

(defun dsh-check (name ok &optional detail)
  (push (list :name name :ok (if ok t :false) :detail (format "%S" detail))
        (plist-get dsh-results :checks))
  ok)

(defun dsh-data (key value)
  (setq dsh-results (plist-put dsh-results :data
                               (plist-put (plist-get dsh-results :data) key value))))

(defun dsh-finish ()
  (let ((json-encoding-pretty-print nil)
        (results (list :checks (vconcat (reverse (plist-get dsh-results :checks)))
                       :data (or (plist-get dsh-results :data) (list :none t)))))
    (with-temp-file (getenv "DSH_OUT") (insert (json-encode results))))
  (ignore-errors (let ((server (eglot-current-server))) (when server (eglot-shutdown server))))
  (kill-emacs 0))

(defun dsh-wait (what seconds pred)
  "Let eglot talk for up to SECONDS until PRED holds; a failed check named WHAT if not.
Every half second it asks the server something (`dsh.lastAnswer'): Emacs 28's jsonrpc leaves
the messages read in the same chunk after a request's answer unprocessed until more output
arrives (its filter is left by a throw), as a user's next request would flush them."
  (let ((deadline (+ (float-time) seconds))
        (next-poke (+ (float-time) 0.5)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05)
      (when (and (> (float-time) next-poke) (eglot-current-server))
        (setq next-poke (+ (float-time) 0.5))
        (ignore-errors
          (eglot-execute-command (eglot-current-server) "dsh.lastAnswer" []))))
    (or (funcall pred) (progn (dsh-check (concat "waited for " what) nil) nil))))

(defun dsh-noted (regexp)
  (cl-find-if (lambda (text) (string-match-p regexp text)) dsh-notes))

(advice-add 'eglot-handle-notification :before
            (lambda (_server method &rest args)
              (when (memq method '(window/showMessage window/logMessage))
                (setq dsh-notes (append dsh-notes (list (plist-get args :message)))))))

(advice-add 'completing-read :around
            (lambda (orig prompt collection &rest rest)
              (push prompt dsh-asked)
              (if dsh-pick
                  (funcall dsh-pick prompt collection)
                (apply orig prompt collection rest))))

(defun dsh-pick-matching (regexp)
  (lambda (_prompt collection)
    (let ((names (if (functionp collection)
                     (all-completions "" collection)
                   (mapcar (lambda (c) (if (consp c) (car c) c)) collection))))
      (or (cl-find-if (lambda (name) (string-match-p regexp name)) names)
          (error "no entry matching %s in %S" regexp names)))))

;; The README's eglot block as it stands ($DSH_README_EL: `dsh-prompt', `dsh-last-answer',
;; `eglot-confirm-server-initiated-edits'), then the test's own server command and model.
(load (getenv "DSH_README_EL") nil t)
(setq eglot-sync-connect 30 eglot-connect-timeout 60)
(setq eglot-server-programs
      `((text-mode . (,@(append (json-read-from-string (getenv "DSH_SERVER_CMD")) nil)
                      :initializationOptions
                      (:permissions (:edit "ask")
                       :model (:name "scripted" :baseUrl ,(getenv "DSH_MODEL_URL"))
                       :sessionDir ,(getenv "DSH_SESSION_DIR"))))))

(defun dsh-boot ()
  (let ((default-directory (file-name-as-directory (getenv "DSH_WS"))))
    (find-file (expand-file-name "notes.txt"))
    (text-mode)
    (apply #'eglot (eglot--guess-contact))
    (dsh-wait "eglot to connect" 30 (lambda () (eglot-current-server)))
    (current-buffer)))

(defun dsh-case-prompt-approve-edit ()
  (let ((buf (dsh-boot)))
    (setq dsh-pick (dsh-pick-matching "\\`Allow\\'"))
    (dsh-prompt "Fix notes.txt")
    (dsh-wait "the answer" 30 (lambda () (dsh-noted "^dsh: Done")))
    (dsh-data :notes (vconcat dsh-notes))
    (dsh-data :asked (vconcat dsh-asked))
    (dsh-data :buffer (with-current-buffer buf (buffer-string)))
    (dsh-check "asked for the edit once" (= 1 (length dsh-asked)) dsh-asked)
    (dsh-check "the edit landed in the buffer"
               (equal (with-current-buffer buf (buffer-string)) "alpha\nbeta EDITED\ngamma\n")
               (with-current-buffer buf (buffer-string)))
    (dsh-check "the buffer is unsaved" (buffer-modified-p buf))
    (dsh-check "the answer was shown" (dsh-noted "^dsh: Done") dsh-notes)
    (dsh-last-answer)
    (dsh-check "dsh-last-answer shows the whole answer"
               (equal (with-current-buffer "*dsh answer*" (buffer-string)) "Done.\n\nAll set.")
               (with-current-buffer "*dsh answer*" (buffer-string)))))

(defun dsh-case-code-action ()
  (let ((buf (dsh-boot)))
    (setq dsh-pick (dsh-pick-matching "explain"))
    (with-current-buffer buf
      (goto-char (point-min))
      (forward-line 1)
      ;; as if chosen with the keyboard (a mouse event would open a popup menu)
      (let ((last-nonmenu-event ?x))
        (eglot-code-actions (line-beginning-position) (line-end-position) nil t)))
    (dsh-wait "the answer" 30 (lambda () (dsh-noted "^dsh: It is")))
    (dsh-data :notes (vconcat dsh-notes))
    (dsh-data :asked (vconcat dsh-asked))
    (dsh-check "the answer was shown" (dsh-noted "^dsh: It is") dsh-notes)))

(defun dsh-case-cancel ()
  (dsh-boot)
  (dsh-prompt "Write a long essay")
  (dsh-wait "the turn to start" 30 (lambda () (dsh-noted "^dsh: working on")))
  ;; "working on" is shown before the model is asked: cancel once the request is streaming
  ;; (the test writes DSH_MODEL_ASKED when the model server receives it)
  (dsh-wait "the model request" 30 (lambda () (file-exists-p (getenv "DSH_MODEL_ASKED"))))
  (eglot-execute-command (eglot-current-server) "dsh.cancel" [])
  (dsh-wait "the cancel" 30 (lambda () (dsh-noted "^dsh: cancelled")))
  (dsh-data :notes (vconcat dsh-notes))
  (dsh-check "cancelled was shown" (dsh-noted "^dsh: cancelled") dsh-notes))

(condition-case err
    (pcase (getenv "DSH_CASE")
      ("prompt, approve, edit" (dsh-case-prompt-approve-edit))
      ("code action" (dsh-case-code-action))
      ("cancel" (dsh-case-cancel))
      (case (dsh-check (format "unknown case %s" case) nil)))
  (error (dsh-check "no error" nil err)))
(dsh-finish)

;;; eglot_spec.el ends here
