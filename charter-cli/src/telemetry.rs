//! `charter mcp` telemetry: OpenTelemetry traces and metrics over OTLP/HTTP, when configured.
//!
//! Configured means `--otlp-endpoint URL`, or the standard `OTEL_EXPORTER_OTLP_ENDPOINT` (or the
//! per-signal `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `..._METRICS_ENDPOINT`) in the environment;
//! otherwise nothing is set up and nothing measured. The other standard variables
//! (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`, `OTEL_BSP_*`, `OTEL_SDK_DISABLED`) apply as
//! the SDK reads them. What is recorded: `charter_mcp::server::telemetry`.

#[cfg(feature = "otel")]
use std::time::Duration;

use crate::Failure;
use crate::args::TelemetryArgs;

/// The installed providers; flushed and shut down when dropped (at the end of `charter mcp`).
#[cfg(feature = "otel")]
pub(crate) struct Telemetry {
    traces: opentelemetry_sdk::trace::SdkTracerProvider,
    metrics: Option<opentelemetry_sdk::metrics::SdkMeterProvider>,
}

#[cfg(not(feature = "otel"))]
pub(crate) struct Telemetry;

fn set(var: &str) -> bool {
    std::env::var_os(var).is_some_and(|v| !v.is_empty())
}

/// Sets up export when configured; `None` when not.
pub(crate) fn start(args: &TelemetryArgs) -> Result<Option<Telemetry>, Failure> {
    let traces = args.otlp_endpoint.is_some()
        || set("OTEL_EXPORTER_OTLP_ENDPOINT")
        || set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
    let disabled = std::env::var("OTEL_SDK_DISABLED").is_ok_and(|v| v.eq_ignore_ascii_case("true"));
    if !traces || disabled {
        return Ok(None);
    }
    build(args)
}

#[cfg(not(feature = "otel"))]
fn build(_: &TelemetryArgs) -> Result<Option<Telemetry>, Failure> {
    Err(Failure::Usage(
        "an OTLP endpoint is configured, but this charter was built without telemetry (cargo \
         feature `otel`)"
            .to_owned(),
    ))
}

#[cfg(feature = "otel")]
fn build(args: &TelemetryArgs) -> Result<Option<Telemetry>, Failure> {
    use opentelemetry_otlp::{MetricExporter, SpanExporter, WithExportConfig};
    use opentelemetry_sdk::Resource;
    use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
    use opentelemetry_sdk::propagation::TraceContextPropagator;
    use opentelemetry_sdk::trace::SdkTracerProvider;

    // https collectors: rustls has no default provider in this build.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let base = args
        .otlp_endpoint
        .as_deref()
        .map(|url| url.trim_end_matches('/'));
    let bad = |e: &dyn std::fmt::Display| Failure::Usage(format!("OTLP exporter: {e}"));
    let timeout = Duration::from_secs(10);
    let mut spans = SpanExporter::builder().with_http().with_timeout(timeout);
    if let Some(base) = base {
        spans = spans.with_endpoint(format!("{base}/v1/traces"));
    }
    let spans = spans.build().map_err(|e| bad(&e))?;
    let resource = Resource::builder().with_service_name("charter").build();
    let traces = SdkTracerProvider::builder()
        .with_batch_exporter(spans)
        .with_resource(resource.clone())
        .build();
    let metrics_configured = base.is_some()
        || set("OTEL_EXPORTER_OTLP_ENDPOINT")
        || set("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");
    let metrics = if metrics_configured {
        let mut exporter = MetricExporter::builder().with_http().with_timeout(timeout);
        if let Some(base) = base {
            exporter = exporter.with_endpoint(format!("{base}/v1/metrics"));
        }
        let exporter = exporter.build().map_err(|e| bad(&e))?;
        let provider = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(exporter).build())
            .with_resource(resource)
            .build();
        opentelemetry::global::set_meter_provider(provider.clone());
        Some(provider)
    } else {
        None
    };
    opentelemetry::global::set_tracer_provider(traces.clone());
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    charter_mcp::server::telemetry::enable(charter_mcp::server::telemetry::TelemetryOptions {
        record_content: args.otel_record_content,
    });
    Ok(Some(Telemetry { traces, metrics }))
}

#[cfg(feature = "otel")]
impl Drop for Telemetry {
    fn drop(&mut self) {
        // Sends what is still batched; an unreachable collector costs its timeout at most.
        if let Err(error) = self.traces.shutdown() {
            tracing::warn!(%error, "could not flush traces");
        }
        if let Some(metrics) = &self.metrics
            && let Err(error) = metrics.shutdown()
        {
            tracing::warn!(%error, "could not flush metrics");
        }
    }
}
