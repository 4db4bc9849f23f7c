{{/* Names and labels: every object is <release>-payrun-<component>, or <release>-<component> when the release's name says payrun already. */}}
{{- define "payrun.fullname" -}}
{{- if contains "payrun" .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-payrun" .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "payrun.labels" -}}
app.kubernetes.io/name: payrun
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* The selector of one component: ("payrun.selector" (list $ "worker")). */}}
{{- define "payrun.selector" -}}
app.kubernetes.io/name: payrun
app.kubernetes.io/instance: {{ (index . 0).Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{- define "payrun.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* Where a secret's file is: ("payrun.secretFile" (list $ "payloadKeys")). */}}
{{- define "payrun.secretFile" -}}
{{- $s := index (index . 0).Values.secrets (index . 1) -}}
/run/secrets/payrun/{{ index . 1 | kebabcase }}/{{ $s.key }}
{{- end -}}

{{/*
Volumes for the secrets a pod uses, one Secret each, only the key it needs, readable by the pod's group
(fsGroup) and nobody else: ("payrun.secretVolumes" (list $ "payloadKeys" "policy")).
*/}}
{{- define "payrun.secretVolumes" -}}
{{- $root := index . 0 -}}
{{- range $id := rest . }}
{{- $s := index $root.Values.secrets $id }}
- name: secret-{{ $id | kebabcase }}
  secret:
    secretName: {{ required (printf "secrets.%s.name: the Secret with %s" $id $s.key) $s.name }}
    defaultMode: 288 # 0440
    items:
      - key: {{ $s.key }}
        path: {{ $s.key }}
{{- end }}
{{- end -}}

{{- define "payrun.secretMounts" -}}
{{- $root := index . 0 -}}
{{- range $id := rest . }}
- name: secret-{{ $id | kebabcase }}
  mountPath: /run/secrets/payrun/{{ $id | kebabcase }}
  readOnly: true
{{- end }}
{{- end -}}

{{/* The TLS files and API key of the connection to Temporal, where set: ("payrun.temporalVolumes" $). */}}
{{- define "payrun.temporalVolumes" -}}
{{- $root := . -}}
{{- if $root.Values.temporal.tls.secretName }}
- name: temporal-tls
  secret:
    secretName: {{ $root.Values.temporal.tls.secretName }}
    defaultMode: 288 # 0440
{{- end }}
{{- if $root.Values.temporal.apiKeySecret.name }}
- name: temporal-api-key
  secret:
    secretName: {{ $root.Values.temporal.apiKeySecret.name }}
    defaultMode: 288 # 0440
    items:
      - key: {{ $root.Values.temporal.apiKeySecret.key }}
        path: api-key
{{- end }}
{{- end -}}

{{- define "payrun.temporalMounts" -}}
{{- $root := . -}}
{{- if $root.Values.temporal.tls.secretName }}
- name: temporal-tls
  mountPath: /run/secrets/payrun/temporal-tls
  readOnly: true
{{- end }}
{{- if $root.Values.temporal.apiKeySecret.name }}
- name: temporal-api-key
  mountPath: /run/secrets/payrun/temporal-api-key
  readOnly: true
{{- end }}
{{- end -}}

{{/* How payrun's processes reach Temporal (docs/operations.md, "Connecting payrun to Temporal"). */}}
{{- define "payrun.temporalEnv" -}}
- name: TEMPORAL_ADDRESS
  value: {{ .Values.temporal.address | quote }}
- name: TEMPORAL_NAMESPACE
  value: {{ .Values.temporal.namespace | quote }}
- name: PAYRUN_TASK_QUEUE
  value: {{ .Values.temporal.taskQueue | quote }}
{{- with .Values.temporal.tls }}
{{- if .enabled }}
- name: TEMPORAL_TLS
  value: "true"
{{- if and .secretName .caCert }}
- name: TEMPORAL_TLS_CA_FILE
  value: /run/secrets/payrun/temporal-tls/ca.crt
{{- end }}
{{- if and .secretName .clientCert }}
- name: TEMPORAL_TLS_CERT_FILE
  value: /run/secrets/payrun/temporal-tls/tls.crt
- name: TEMPORAL_TLS_KEY_FILE
  value: /run/secrets/payrun/temporal-tls/tls.key
{{- end }}
{{- with .serverName }}
- name: TEMPORAL_TLS_SERVER_NAME
  value: {{ . | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- if .Values.temporal.apiKeySecret.name }}
- name: TEMPORAL_API_KEY_FILE
  value: /run/secrets/payrun/temporal-api-key/api-key
{{- end }}
{{- end -}}

{{/* The bank and payer settings and the extra variables, as compose's .env.production gives them. */}}
{{- define "payrun.settingsEnv" -}}
- name: PAYRUN_DATA_DIR
  value: /app/data
- name: {{ printf "BANK_BASE_URL_%s" (.Values.bank.env | upper) }}
  value: {{ required "bank.baseUrl: the bank's address" .Values.bank.baseUrl | quote }}
- name: BANK_API_VERSION
  value: {{ .Values.bank.apiVersion | quote }}
- name: PARTNER_PROJECT
  value: {{ required "partner.project: payrun's project id at the bank" .Values.partner.project | quote }}
{{- with .Values.partner.submerchant }}
- name: PARTNER_SUBMERCHANT
  value: {{ . | quote }}
{{- end }}
- name: PAYER_TYPE
  value: {{ .Values.payer.type | quote }}
- name: PAYER_TAX_NUMBER
  value: {{ required "payer.taxNumber" .Values.payer.taxNumber | quote }}
- name: PAYER_NAME
  value: {{ required "payer.name" .Values.payer.name | quote }}
{{- range $name, $value := .Values.extraEnv }}
{{- if regexMatch "(KEY|SECRET|TOKEN|PASSWORD)$" $name }}
{{- fail (printf "extraEnv.%s: a secret is never an environment variable; mount it as a file (secrets:)" $name) }}
{{- end }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- end -}}

{{/*
Which bank: for the processes that talk to it or check its webhooks (worker, ingress, watcher), as in
compose. Not the console: with BANK_ENV set it would need the bank's private key for its dry run, which
stays with the worker alone (the console says on its page why the dry run is off).
*/}}
{{- define "payrun.bankEnv" -}}
- name: BANK_ENV
  value: {{ .Values.bank.env | quote }}
{{- end -}}

{{/* The bank's webhook key, as the variable BANK_ENV picks. */}}
{{- define "payrun.bankPublicKeyEnv" -}}
- name: {{ printf "BANK_PUBLIC_KEY_%s_FILE" (.Values.bank.env | upper) }}
  value: {{ include "payrun.secretFile" (list . "bankPublicKey") }}
{{- end -}}

{{/* The PostgreSQL batch store every process that touches batches shares. */}}
{{- define "payrun.batchStoreEnv" -}}
- name: PAYRUN_BATCH_STORE
  value: postgres
- name: PAYRUN_BATCH_STORE_URL_FILE
  value: {{ include "payrun.secretFile" (list . "batchStoreUrl") }}
- name: PAYRUN_PAYLOAD_KEYS_FILE
  value: {{ include "payrun.secretFile" (list . "payloadKeys") }}
{{- end -}}

{{/* The claim with accounting's folders: the watcher's, shared by the console, which submits into it. */}}
{{- define "payrun.inboxClaim" -}}
{{- .Values.watcher.inbox.existingClaim | default (printf "%s-watcher-inbox" (include "payrun.fullname" .)) -}}
{{- end -}}

{{/* Writable places on a read-only root filesystem. */}}
{{- define "payrun.scratchVolumes" -}}
- name: tmp
  emptyDir: {}
- name: data
  emptyDir: {}
{{- end -}}
{{- define "payrun.scratchMounts" -}}
- name: tmp
  mountPath: /tmp
- name: data
  mountPath: /app/data
{{- end -}}

{{- define "payrun.podSpecCommon" -}}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
automountServiceAccountToken: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
