import { Type } from '@sinclair/typebox';

/*
 * The answer of the hosted API's account insights routes (InstagramAccountInsightsResponse in
 * @zernio/node: Instagram account insights and follower history, Facebook Page insights), one shape for
 * every platform so a client handles them alike. Money metrics carry `unit` and `currency` and keep their
 * daily `values`; a metric that could not be served is left out of `metrics` and listed in
 * `unavailableMetrics`, so it never reads as a zero.
 */

export const MetricType = Type.Union([Type.Literal('time_series'), Type.Literal('total_value')]);

/** The range of an insights query: `fromDate`/`toDate`, or `since`/`until` (YYYY-MM-DD). */
export const InsightsRange = {
  fromDate: Type.Optional(Type.String({ maxLength: 32 })),
  toDate: Type.Optional(Type.String({ maxLength: 32 })),
  since: Type.Optional(Type.String({ maxLength: 32 })),
  until: Type.Optional(Type.String({ maxLength: 32 })),
};

/** The query of an account insights route: the range, the metrics (comma-separated) and their shape. */
export const InsightsQuery = {
  ...InsightsRange,
  metrics: Type.Optional(Type.String({ maxLength: 500 })),
  metricType: Type.Optional(MetricType),
};
export const BreakdownRow = Type.Object({ dimension: Type.String(), value: Type.Number() });

export const UnavailableMetric = Type.Object({
  metric: Type.String(),
  reason: Type.Union(
    [
      'not_enrolled',
      'permission_missing',
      'unsupported_metric',
      'no_data',
      'unreadable_value',
      'mixed_currency',
      'upstream_error',
    ].map((r) => Type.Literal(r)),
  ),
  message: Type.String(),
});

export const MoneyFields = {
  unit: Type.Optional(Type.Union([Type.Literal('micro_amount'), Type.Literal('unspecified')])),
  currency: Type.Optional(Type.Union([Type.String(), Type.Null()])),
};

export const InsightsResponse = Type.Object({
  success: Type.Boolean(),
  accountId: Type.String(),
  platform: Type.String(),
  dateRange: Type.Object({ since: Type.String(), until: Type.String() }),
  metricType: MetricType,
  breakdown: Type.Optional(Type.String()),
  metrics: Type.Record(
    Type.String(),
    Type.Object({
      total: Type.Number(),
      values: Type.Optional(Type.Array(Type.Object({ date: Type.String(), value: Type.Number() }))),
      breakdowns: Type.Optional(Type.Array(BreakdownRow)),
      ...MoneyFields,
    }),
  ),
  unavailableMetrics: Type.Optional(Type.Array(UnavailableMetric)),
  dataDelay: Type.Optional(Type.String()),
});
