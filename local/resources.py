"""Create the template's resources in an (emulated) AWS account, from template.yaml itself."""

import json
import re
import secrets
import string
from typing import Any

from local.template import ACCOUNT, ROOT, Template

# The console's origin under `make run` (its default port); the local stack passes its own.
LOCAL_CONSOLE_ORIGIN = "http://127.0.0.1:3000"
TABLE_PROPERTIES = (
    "AttributeDefinitions",
    "KeySchema",
    "BillingMode",
    "GlobalSecondaryIndexes",
    "LocalSecondaryIndexes",
    "StreamSpecification",
)


def create_tables(template: Template, dynamodb: Any) -> list[str]:
    created = []
    for logical_id, spec in template.of_type("AWS::DynamoDB::Table").items():
        props = spec.get("Properties", {})
        name = template.physical_name(logical_id)
        dynamodb.create_table(TableName=name, **{key: props[key] for key in TABLE_PROPERTIES if key in props})
        ttl = props.get("TimeToLiveSpecification")
        if ttl:
            dynamodb.update_time_to_live(TableName=name, TimeToLiveSpecification=ttl)
        created.append(name)
    return created


def create_secrets(template: Template, secretsmanager: Any) -> None:
    """Secrets with GenerateSecretString get a fresh random value, as CloudFormation would give them."""
    for logical_id, spec in template.of_type("AWS::SecretsManager::Secret").items():
        props = spec.get("Properties", {})
        generate = props.get("GenerateSecretString", {})
        alphabet = string.ascii_letters + string.digits
        value = props.get("SecretString") or "".join(
            secrets.choice(alphabet) for _ in range(int(generate.get("PasswordLength", 32)))
        )
        secretsmanager.create_secret(Name=template.physical_name(logical_id), SecretString=value)


# Queue properties of the template that are SQS attributes of the same name and change what a consumer sees.
QUEUE_ATTRIBUTES = ("FifoQueue", "VisibilityTimeout", "MessageRetentionPeriod", "DelaySeconds", "MaximumMessageSize")


def create_queues_and_topics(template: Template, sqs: Any, sns: Any) -> None:
    """Queues with the template's visibility timeouts and retention, then their dead-letter queues: a message
    received maxReceiveCount times moves to its dead-letter queue, as in AWS."""
    queues = template.of_type("AWS::SQS::Queue")
    for logical_id, spec in queues.items():
        props = spec.get("Properties", {})
        attributes = {name: template.resolve(props[name]) for name in QUEUE_ATTRIBUTES if name in props}
        sqs.create_queue(QueueName=template.physical_name(logical_id), Attributes=attributes)
    for logical_id, spec in queues.items():  # once every dead-letter queue exists
        redrive = spec.get("Properties", {}).get("RedrivePolicy")
        if redrive:
            policy = {
                "deadLetterTargetArn": template.resolve(redrive["deadLetterTargetArn"]),
                "maxReceiveCount": int(template.resolve(redrive["maxReceiveCount"])),
            }
            sqs.set_queue_attributes(
                QueueUrl=template.queue_url(logical_id), Attributes={"RedrivePolicy": json.dumps(policy)}
            )
    for logical_id in template.of_type("AWS::SNS::Topic"):
        sns.create_topic(Name=template.physical_name(logical_id))


def create_buckets(template: Template, s3: Any, console_origin: str) -> None:
    """Buckets, versioned as the template's are, with their SQS event notifications (the emulator delivers them, a
    test event first) and their CORS
    rules, which name the console's origin: locally `console_origin` stands for the template's."""
    for logical_id, spec in template.of_type("AWS::S3::Bucket").items():
        name = template.physical_name(logical_id)
        s3.create_bucket(Bucket=name)
        if spec.get("Properties", {}).get("VersioningConfiguration", {}).get("Status") == "Enabled":
            s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
        cors = spec.get("Properties", {}).get("CorsConfiguration", {}).get("CorsRules", [])
        if cors:
            rules = [{**cors_rule(rule), "AllowedOrigins": [console_origin]} for rule in cors]
            s3.put_bucket_cors(Bucket=name, CORSConfiguration={"CORSRules": rules})
        queues = spec.get("Properties", {}).get("NotificationConfiguration", {}).get("QueueConfigurations", [])
        if queues:
            configurations = [
                {"QueueArn": template.resolve(queue["Queue"]), "Events": [queue["Event"]]} for queue in queues
            ]
            s3.put_bucket_notification_configuration(
                Bucket=name, NotificationConfiguration={"QueueConfigurations": configurations}
            )


def cors_rule(rule: dict[str, Any]) -> dict[str, Any]:
    """A CorsRules entry of the template as S3's API takes it (but its origins)."""
    names = {"AllowedMethods": "AllowedMethods", "AllowedHeaders": "AllowedHeaders", "ExposedHeaders": "ExposeHeaders"}
    taken = {api: rule[field] for field, api in names.items() if field in rule}
    if "MaxAge" in rule:
        taken["MaxAgeSeconds"] = int(rule["MaxAge"])
    return taken


def substituted(text: str, values: dict[str, Any]) -> str:
    return re.sub(r"\$\{(\w+)\}", lambda match: str(values[match.group(1)]), text)


def create_state_machines(template: Template, stepfunctions: Any) -> None:
    """Each definition file with its DefinitionSubstitutions resolved, as SAM deploys it."""
    for logical_id, spec in template.of_type("AWS::Serverless::StateMachine").items():
        props = spec["Properties"]
        values = {name: template.resolve(value) for name, value in props.get("DefinitionSubstitutions", {}).items()}
        text = (ROOT / props["DefinitionUri"]).read_text(encoding="utf-8")
        definition = substituted(text, values)
        stepfunctions.create_state_machine(
            name=template.physical_name(logical_id),
            definition=definition,
            roleArn=f"arn:aws:iam::{ACCOUNT}:role/{logical_id}Role",
            type=props.get("Type", "STANDARD"),
        )


def create_all(template: Template, clients: Any, console_origin: str = LOCAL_CONSOLE_ORIGIN) -> None:
    """`clients(service)` gives a boto3 client of the emulated account."""
    create_stores(template, clients, console_origin)
    create_state_machines(template, clients("stepfunctions"))


def create_stores(template: Template, clients: Any, console_origin: str = LOCAL_CONSOLE_ORIGIN) -> None:
    """Everything but the state machines (whose emulator takes seconds to import): tables, secrets, queues and
    topics, buckets."""
    create_tables(template, clients("dynamodb"))
    create_secrets(template, clients("secretsmanager"))
    create_queues_and_topics(template, clients("sqs"), clients("sns"))
    create_buckets(template, clients("s3"), console_origin)
