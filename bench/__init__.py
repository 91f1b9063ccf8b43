"""`make bench`: cold-start cost of every function, the layer's size and the DynamoDB calls of each request."""

# The functions run in-process here: their logs and metric lines would break up the tables.
QUIET = {"POWERTOOLS_LOG_LEVEL": "ERROR", "POWERTOOLS_METRICS_DISABLED": "true"}
