{{/*
Names, labels and small shared pieces. Component helpers take a dict:
  (dict "root" $ "target" "router")
*/}}

{{/* Chart name, overridable. */}}
{{- define "switchyard.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Resource name prefix: <release>-<chart>, or <release> when it already holds the chart name. */}}
{{- define "switchyard.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* <fullname>-<target>, kept within 63 characters (a DNS label: Services need it). */}}
{{- define "switchyard.componentName" -}}
{{- $base := include "switchyard.fullname" .root | trunc 52 | trimSuffix "-" }}
{{- printf "%s-%s" $base .target }}
{{- end }}

{{- define "switchyard.chartLabel" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every object (takes the root context). */}}
{{- define "switchyard.labels" -}}
helm.sh/chart: {{ include "switchyard.chartLabel" . }}
app.kubernetes.io/name: {{ include "switchyard.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: switchyard
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Selector labels of one target: stable across upgrades (Deployment selectors are immutable). */}}
{{- define "switchyard.selectorLabels" -}}
app.kubernetes.io/name: {{ include "switchyard.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .target }}
{{- end }}

{{/* Labels of one target's objects. */}}
{{- define "switchyard.componentLabels" -}}
{{ include "switchyard.labels" .root }}
app.kubernetes.io/component: {{ .target }}
{{- end }}

{{/* The targets this release runs, space-separated: "all", or "ingress router catalog [worker]". */}}
{{- define "switchyard.targets" -}}
{{- if eq .Values.mode "monolithic" -}}
all
{{- else -}}
ingress router catalog{{ if .Values.targets.worker.enabled }} worker{{ end }}
{{- end -}}
{{- end }}

{{/* The target clients talk to: the ingress, or `all` in monolithic mode. */}}
{{- define "switchyard.publicTarget" -}}
{{- if eq .Values.mode "monolithic" }}all{{ else }}ingress{{ end }}
{{- end }}

{{/* In-cluster URL of a target's Service (namespace-qualified, no cluster domain assumed). */}}
{{- define "switchyard.serviceUrl" -}}
{{- $config := index .root.Values.targets .target }}
{{- printf "http://%s.%s.svc:%v" (include "switchyard.componentName" .) .root.Release.Namespace $config.service.port }}
{{- end }}

{{- define "switchyard.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{- define "switchyard.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "switchyard.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* "true" when some Redis is configured, else empty. */}}
{{- define "switchyard.hasRedis" -}}
{{- if or .Values.redis.url .Values.redis.secretRef.name .Values.redis.deploy }}true{{ end }}
{{- end }}

{{/* The REDIS_URL EnvVar (a list item), or nothing. */}}
{{- define "switchyard.redisEnv" -}}
{{- if .Values.redis.secretRef.name }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.redis.secretRef.name }}
      key: {{ .Values.redis.secretRef.key }}
{{- else if .Values.redis.url }}
- name: REDIS_URL
  value: {{ .Values.redis.url | quote }}
{{- else if .Values.redis.deploy }}
- name: REDIS_URL
  value: {{ printf "redis://%s.%s.svc:6379" (include "switchyard.componentName" (dict "root" . "target" "redis")) .Release.Namespace | quote }}
{{- end }}
{{- end }}

{{/* Name of the ConfigMap that holds the config file. */}}
{{- define "switchyard.configMapName" -}}
{{- include "switchyard.componentName" (dict "root" . "target" "config") }}
{{- end }}

{{/*
Name of the Secret holding the internal token (microservices mode): the given one, else the
generated one, else empty (no token: the internal hops are unauthenticated).
*/}}
{{- define "switchyard.internalTokenSecretName" -}}
{{- if ne .Values.mode "monolithic" -}}
{{- if .Values.internalToken.secretRef.name -}}
{{- .Values.internalToken.secretRef.name -}}
{{- else if .Values.internalToken.generate -}}
{{- include "switchyard.componentName" (dict "root" . "target" "internal-token") -}}
{{- end -}}
{{- end -}}
{{- end }}
