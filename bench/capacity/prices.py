"""The prices the capacity model assumes: AWS us-east-1, on-demand, public list prices as of November 2024
(taken from AWS's price pages as they stood then; this machine has no internet, so check them before a budget).
"""

from dataclasses import dataclass

AS_OF = "November 2024"


@dataclass(frozen=True)
class Price:
    what: str
    usd: float
    per: str
    source: str


LAMBDA_REQUESTS = Price("Lambda requests", 0.20, "1M requests", "https://aws.amazon.com/lambda/pricing/")
LAMBDA_GB_SECONDS = Price("Lambda duration (x86)", 0.0000166667, "GB-second", "https://aws.amazon.com/lambda/pricing/")
# REST API requests, by tier of the month's requests: the first 333 million, the next 667 million, the next 19
# billion, then beyond.
API_TIERS = ((333e6, 3.50), (667e6, 2.80), (19e9, 2.38), (float("inf"), 1.51))
API_REQUESTS = Price(
    "API Gateway REST requests (first 333M; then 2.80, 2.38, 1.51)",
    3.50,
    "1M requests",
    "https://aws.amazon.com/api-gateway/pricing/",
)
# On-demand throughput after the 50% reduction of 1 November 2024.
DYNAMODB_WRITES = Price(
    "DynamoDB write request units", 0.625, "1M units", "https://aws.amazon.com/dynamodb/pricing/on-demand/"
)
DYNAMODB_READS = Price(
    "DynamoDB read request units", 0.125, "1M units", "https://aws.amazon.com/dynamodb/pricing/on-demand/"
)
CLOUDFRONT_REQUESTS = Price(
    "CloudFront HTTPS requests (US, Europe)", 0.0100, "10,000 requests", "https://aws.amazon.com/cloudfront/pricing/"
)
# Data transfer out to the internet (US, Europe) by tier of the month's volume: 10 TB, 40 TB, 100 TB, 350 TB.
CLOUDFRONT_TIERS = ((10_240, 0.085), (40_960, 0.080), (102_400, 0.060), (358_400, 0.040), (float("inf"), 0.030))
CLOUDFRONT_TRANSFER = Price(
    "CloudFront data out (first 10 TB; then 0.080, 0.060, 0.040, 0.030)",
    0.085,
    "GB",
    "https://aws.amazon.com/cloudfront/pricing/",
)
# Without CloudFront, replies leave through API Gateway at EC2's internet rates (first 10 TB, next 40, next 100).
DIRECT_TIERS = ((10_240, 0.09), (40_960, 0.085), (102_400, 0.07), (float("inf"), 0.05))
DIRECT_TRANSFER = Price(
    "Data out from API Gateway (first 10 TB; then 0.085, 0.07, 0.05)",
    0.09,
    "GB",
    "https://aws.amazon.com/ec2/pricing/on-demand/#Data_Transfer",
)
S3_GETS = Price("S3 GET requests (Standard)", 0.0004, "1,000 requests", "https://aws.amazon.com/s3/pricing/")
# S3's data out to the internet: EC2's tiers (DIRECT_TIERS), counted here apart from the API's.
S3_TRANSFER = Price(
    "S3 data out (first 10 TB; then 0.085, 0.07, 0.05)", 0.09, "GB", "https://aws.amazon.com/s3/pricing/"
)
LOG_INGESTION = Price("CloudWatch Logs ingestion (standard)", 0.50, "GB", "https://aws.amazon.com/cloudwatch/pricing/")
LOG_STORAGE = Price(
    "CloudWatch Logs storage (compressed)", 0.03, "GB-month", "https://aws.amazon.com/cloudwatch/pricing/"
)
XRAY_TRACES = Price("X-Ray traces recorded", 5.00, "1M traces", "https://aws.amazon.com/xray/pricing/")

ALL = (
    LAMBDA_REQUESTS,
    LAMBDA_GB_SECONDS,
    API_REQUESTS,
    DYNAMODB_READS,
    DYNAMODB_WRITES,
    CLOUDFRONT_REQUESTS,
    CLOUDFRONT_TRANSFER,
    DIRECT_TRANSFER,
    S3_GETS,
    S3_TRANSFER,
    LOG_INGESTION,
    LOG_STORAGE,
    XRAY_TRACES,
)


def tiered(amount: float, tiers: tuple[tuple[float, float], ...], unit: float = 1.0) -> float:
    """The cost of `amount` (in `unit`s) through price tiers of (size of the tier, price per `unit`)."""
    cost, left = 0.0, amount
    for size, price in tiers:
        used = min(left, size)
        cost += used / unit * price
        left -= used
        if left <= 0:
            break
    return cost
