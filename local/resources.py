"""Create the template's resources in an (emulated) AWS account, from template.yaml itself."""

import secrets
import string
from typing import Any

from local.template import Template

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


def create_all(template: Template, clients: Any) -> None:
    """`clients(service)` gives a boto3 client of the emulated account."""
    create_tables(template, clients("dynamodb"))
    create_secrets(template, clients("secretsmanager"))
