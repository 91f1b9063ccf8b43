"""Process-wide Powertools utilities; service name, namespace and log level come from the environment."""

from aws_lambda_powertools import Logger, Metrics, Tracer

logger = Logger()
tracer = Tracer()
metrics = Metrics()
