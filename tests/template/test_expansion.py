"""template.yaml as CloudFormation and SAM expand it (issue 17): `Fn::ForEach` expanded as cfn-lint (what
`make lint` checks the template with) expands it, the Globals merged by SAM's rules, and every function with
the routes, environment and permissions it had before the template was written by service."""

from types import SimpleNamespace
from typing import Any

import pytest
from cfnlint.template.transforms._language_extensions import language_extension

from local.template import REGION, Template, expand_language_extensions, load

DOCUMENT = load()
TEMPLATE = Template(DOCUMENT)
# Every function's variables: the Globals' and its service's name (test_template_operations.py checks that one).
SHARED_VARIABLES = {*DOCUMENT["Globals"]["Function"]["Environment"]["Variables"], "POWERTOOLS_SERVICE_NAME"}

# What each of the guide's read methods and of the registry's lists is given.
GUIDE_READER = (
    {"GUIDE_TABLE": "GuideTable", "GUIDE_RETENTION_DAYS": "GuideRetentionDays", "REGISTRY_TABLE": "RegistryTable"},
    {
        "GuideTable": "dynamodb:BatchGetItem dynamodb:GetItem dynamodb:Query",
        "RegistryTable": "dynamodb:BatchGetItem dynamodb:GetItem",
    },
)
REGISTRY_LIST = (
    {"REGISTRY_TABLE": "RegistryTable"},
    {"RegistryTable": "dynamodb:BatchGetItem dynamodb:GetItem dynamodb:Query"},
)
# What a function that records staff changes is given: the audit trail and how long it keeps an entry.
GUIDE_TABLE = {"GUIDE_TABLE": "GuideTable", "GUIDE_RETENTION_DAYS": "GuideRetentionDays"}  # the guide's staff
AUDITED = {"AUDIT_TABLE": "AuditTable", "AUDIT_RETENTION_DAYS": "AuditRetentionDays"}
REGISTRY_REPORTS = {"REGISTRY_TABLE": "RegistryTable", "REGISTRY_REPORTS_TABLE": "RegistryReportsTable"}
# Each function's routes, its environment but the Globals' and POWERTOOLS_SERVICE_NAME (by the logical id or
# parameter it names), and what its policies allow, by resource: as they were before the template moved to
# Fn::ForEach and Globals. A change to any of them shows here, in the open.
FUNCTIONS = {
    "ConsoleAuditFunction": (["GET /staff/audit.json"], AUDITED, {"AuditTable": "dynamodb:Query"}),
    "ConsoleFilesFunction": (
        ["GET /console", "GET /console/{file+}"],
        {
            "CONSOLE_CLIENT_ID": "ConsoleClientId",
            "CONSOLE_UPLOAD_BUCKETS": "${RegistryUploadBucket},${GuideInboxBucket}",
        },
        {},
    ),
    "ConsoleMeFunction": (["GET /staff/me.json"], {}, {}),
    "AuthAccountDataFunction": (
        ["GET /auth/2/account/data"],
        {"AUTH_TABLE": "AuthTable"},
        {"AuthTable": "dynamodb:GetItem"},
    ),
    "AuthAccountDataPatchFunction": (
        ["PATCH /auth/2/account/data"],
        {"AUTH_TABLE": "AuthTable"},
        {"AuthTable": "dynamodb:GetItem dynamodb:PutItem"},
    ),
    "AuthAccountFunction": (
        ["GET /auth/2/account"],
        {
            "AUTH_TABLE": "AuthTable",
            "AUTH_KEYS_SECRET": "AuthKeysSecret",
            "PANEL_RUID_GENERATION_DISABLED": "PanelRuidGenerationDisabled",
        },
        {"AuthTable": "dynamodb:BatchGetItem dynamodb:GetItem", "AuthKeysSecret": "secretsmanager:GetSecretValue"},
    ),
    "AuthAuthorizeFunction": (
        ["GET /auth/2/authorize", "POST /auth/2/authorize"],
        {"AUTH_TABLE": "AuthTable", "AUTH_KEYS_SECRET": "AuthKeysSecret"},
        {
            "AuthTable": "dynamodb:DeleteItem dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem",
            "AuthKeysSecret": "secretsmanager:GetSecretValue",
        },
    ),
    "AuthBearerAuthorizerFunction": ([], {"AUTH_TABLE": "AuthTable"}, {"AuthTable": "dynamodb:GetItem"}),
    "AuthDeviceCodeFunction": (
        ["POST /auth/2/device_code"],
        {"AUTH_TABLE": "AuthTable", "AUTH_KEYS_SECRET": "AuthKeysSecret"},
        {
            "AuthTable": "dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem",
            "AuthKeysSecret": "secretsmanager:GetSecretValue",
        },
    ),
    "AuthDeviceAuthorizationFunction": (
        ["POST /auth/2/device_authorization"],
        {"AUTH_TABLE": "AuthTable", "AUTH_KEYS_SECRET": "AuthKeysSecret"},
        {
            "AuthTable": "dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem",
            "AuthKeysSecret": "secretsmanager:GetSecretValue",
        },
    ),
    "AuthDeviceVerificationFunction": (
        ["GET /auth/2/device", "POST /auth/2/device"],
        {"AUTH_TABLE": "AuthTable", "AUTH_KEYS_SECRET": "AuthKeysSecret"},
        {
            "AuthTable": "dynamodb:DeleteItem dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem",
            "AuthKeysSecret": "secretsmanager:GetSecretValue",
        },
    ),
    "AuthIntrospectFunction": (
        ["POST /auth/2/introspect"],
        {"AUTH_TABLE": "AuthTable"},
        {"AuthTable": "dynamodb:BatchGetItem dynamodb:PutItem"},
    ),
    "AuthMetadataFunction": (["GET /.well-known/oauth-authorization-server"], {}, {}),
    "AuthPlaylistLinkFunction": (
        ["POST /auth/2/playlist_link"],
        {"AUTH_TABLE": "AuthTable"},
        {"AuthTable": "dynamodb:DeleteItem dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem"},
    ),
    "AuthPlaylistLinkDeleteFunction": (
        ["DELETE /auth/2/playlist_link"],
        {"AUTH_TABLE": "AuthTable"},
        {"AuthTable": "dynamodb:DeleteItem dynamodb:GetItem dynamodb:PutItem"},
    ),
    "AuthXtreamLoginFunction": (
        ["POST /auth/2/xtream_login"],
        {"AUTH_TABLE": "AuthTable"},
        {"AuthTable": "dynamodb:BatchGetItem dynamodb:PutItem dynamodb:UpdateItem"},
    ),
    "AuthXtreamLoginsFunction": (
        ["GET /auth/2/xtream_logins.json"],
        {"AUTH_TABLE": "AuthTable"},
        {"AuthTable": "dynamodb:BatchGetItem dynamodb:GetItem"},
    ),
    "AuthXtreamLoginDeleteFunction": (
        ["DELETE /auth/2/xtream_login"],
        {"AUTH_TABLE": "AuthTable"},
        {"AuthTable": "dynamodb:DeleteItem dynamodb:GetItem dynamodb:PutItem"},
    ),
    "AuthStaffXtreamLimitFunction": (
        ["POST /staff/auth/xtream_limit.json"],
        {"AUTH_TABLE": "AuthTable", **AUDITED},
        {"AuthTable": "dynamodb:BatchGetItem dynamodb:PutItem", "AuditTable": "dynamodb:PutItem"},
    ),
    "AuthOptionalBearerAuthorizerFunction": ([], {"AUTH_TABLE": "AuthTable"}, {"AuthTable": "dynamodb:GetItem"}),
    "AuthRevokeFunction": (
        ["POST /auth/2/revoke"],
        {"AUTH_TABLE": "AuthTable"},
        {"AuthTable": "dynamodb:BatchGetItem dynamodb:DeleteItem dynamodb:GetItem dynamodb:PutItem"},
    ),
    "AuthTokenFunction": (
        ["POST /auth/2/token"],
        {"AUTH_TABLE": "AuthTable"},
        {
            "AuthTable": "dynamodb:BatchGetItem dynamodb:ConditionCheckItem dynamodb:DeleteItem dynamodb:GetItem "
            "dynamodb:PutItem dynamodb:UpdateItem"
        },
    ),
    "ChannelsListFunction": (
        ["GET /channels"],
        {"CHANNELS_TABLE": "ChannelsTable", "CHANNELS_API_KEY_IDS": "StreamAuthorizationApiKey"},
        {"ChannelsTable": "dynamodb:BatchGetItem dynamodb:GetItem"},
    ),
    "ChannelsPlaylistFunction": (
        ["GET /channels/playlist.m3u"],
        {"CHANNELS_TABLE": "ChannelsTable", "AUTH_TABLE": "AuthTable"},
        {"ChannelsTable": "dynamodb:BatchGetItem dynamodb:GetItem", "AuthTable": "dynamodb:UpdateItem"},
    ),
    "ChannelsXtreamPlayerApiFunction": (
        ["GET /player_api.php", "POST /player_api.php"],
        {
            "CHANNELS_TABLE": "ChannelsTable",
            "AUTH_TABLE": "AuthTable",
            "GUIDE_TABLE": "GuideTable",
            "GUIDE_RETENTION_DAYS": "GuideRetentionDays",
            "REGISTRY_TABLE": "RegistryTable",
        },
        {
            "ChannelsTable": "dynamodb:BatchGetItem dynamodb:GetItem",
            "AuthTable": "dynamodb:BatchGetItem dynamodb:UpdateItem",
            "GuideTable": "dynamodb:BatchGetItem dynamodb:GetItem",
            "RegistryTable": "dynamodb:BatchGetItem dynamodb:GetItem",
        },
    ),
    "ChannelsXtreamPlaylistFunction": (
        ["GET /get.php", "POST /get.php"],
        {"CHANNELS_TABLE": "ChannelsTable", "AUTH_TABLE": "AuthTable"},
        {
            "ChannelsTable": "dynamodb:BatchGetItem dynamodb:GetItem",
            "AuthTable": "dynamodb:BatchGetItem dynamodb:UpdateItem",
        },
    ),
    "ChannelsXtreamLiveFunction": (
        ["GET /live/{username}/{password}/{stream}"],
        {"CHANNELS_TABLE": "ChannelsTable", "AUTH_TABLE": "AuthTable"},
        {
            "ChannelsTable": "dynamodb:BatchGetItem dynamodb:GetItem",
            "AuthTable": "dynamodb:BatchGetItem dynamodb:PutItem dynamodb:UpdateItem",
        },
    ),
    "ChannelsXtreamTimeshiftFunction": (
        ["GET /timeshift/{username}/{password}/{minutes}/{start}/{stream}"],
        {
            "CHANNELS_TABLE": "ChannelsTable",
            "AUTH_TABLE": "AuthTable",
            "GUIDE_TABLE": "GuideTable",
            "GUIDE_RETENTION_DAYS": "GuideRetentionDays",
            "REGISTRY_TABLE": "RegistryTable",
        },
        {
            "ChannelsTable": "dynamodb:BatchGetItem dynamodb:GetItem",
            "AuthTable": "dynamodb:BatchGetItem dynamodb:PutItem dynamodb:UpdateItem",
            "GuideTable": "dynamodb:BatchGetItem dynamodb:GetItem",
            "RegistryTable": "dynamodb:BatchGetItem dynamodb:GetItem",
        },
    ),
    "ChannelsXtreamXmltvFunction": (
        ["GET /xmltv.php"],
        {"AUTH_TABLE": "AuthTable"},
        {"AuthTable": "dynamodb:BatchGetItem dynamodb:UpdateItem"},
    ),
    "ChannelsStaffDiffFunction": (
        ["GET /staff/channels/diff.json"],
        {"CHANNELS_TABLE": "ChannelsTable"},
        {"ChannelsTable": "dynamodb:BatchGetItem dynamodb:Query"},
    ),
    "ChannelsStaffLoadFunction": (
        ["POST /staff/channels/load.json"],
        {"CHANNELS_TABLE": "ChannelsTable", **AUDITED},
        {
            "ChannelsTable": "dynamodb:ConditionCheckItem dynamodb:DeleteItem dynamodb:GetItem dynamodb:PutItem "
            "dynamodb:Query dynamodb:UpdateItem",
            "AuditTable": "dynamodb:PutItem",
        },
    ),
    "ChannelsStaffRollbackFunction": (
        ["POST /staff/channels/rollback.json"],
        {"CHANNELS_TABLE": "ChannelsTable", **AUDITED},
        {
            "ChannelsTable": "dynamodb:ConditionCheckItem dynamodb:GetItem dynamodb:PutItem dynamodb:Query",
            "AuditTable": "dynamodb:PutItem",
        },
    ),
    "ChannelsStaffVersionsFunction": (
        ["GET /staff/channels/versions.json"],
        {"CHANNELS_TABLE": "ChannelsTable"},
        {"ChannelsTable": "dynamodb:GetItem dynamodb:Query"},
    ),
    "GuideChannelFunction": (["GET /tvguide/2/channel.json", "GET /tvguide/2/channel.xml"], *GUIDE_READER),
    "GuideChannelsFunction": (["GET /tvguide/2/channels.json", "GET /tvguide/2/channels.xml"], *GUIDE_READER),
    "GuideIdbytitleFunction": (["GET /tvguide/2/idbytitle.json", "GET /tvguide/2/idbytitle.xml"], *GUIDE_READER),
    "GuideIdbytitlePostFunction": (["POST /tvguide/2/idbytitle.json", "POST /tvguide/2/idbytitle.xml"], *GUIDE_READER),
    "GuideImportFunction": (
        [],
        {
            "GUIDE_TABLE": "GuideTable",
            "GUIDE_RETENTION_DAYS": "GuideRetentionDays",
            "GUIDE_EXPORT_QUEUE_URL": "GuideExportQueue",
        },
        {
            "GuideTable": "dynamodb:BatchGetItem dynamodb:BatchWriteItem dynamodb:DeleteItem dynamodb:GetItem "
            "dynamodb:PutItem dynamodb:Query dynamodb:UpdateItem",  # DeleteItem: the import's lease put back
            "${GuideInboxBucket.Arn}/*": "s3:GetObject",
            "GuideExportQueue": "sqs:SendMessage",
        },
    ),
    "GuideExportFunction": (
        [],
        {**GUIDE_TABLE, "GUIDE_EXPORT_BUCKET": "GuideExportBucket"},
        {
            "GuideTable": "dynamodb:BatchGetItem dynamodb:GetItem dynamodb:Query",
            "${GuideExportBucket.Arn}/xmltv/*": "s3:AbortMultipartUpload s3:DeleteObject s3:PutObject",
        },
    ),
    "GuideScheduleFunction": (["GET /tvguide/2/schedule.json", "GET /tvguide/2/schedule.xml"], *GUIDE_READER),
    "GuideStaffConfigurationFunction": (
        ["GET /staff/guide/configuration.json"],
        GUIDE_TABLE,
        {"GuideTable": "dynamodb:GetItem"},
    ),
    "GuideStaffConfigurationSaveFunction": (
        ["POST /staff/guide/configuration.json"],
        {**GUIDE_TABLE, **AUDITED, "GUIDE_EXPORT_QUEUE_URL": "GuideExportQueue"},
        {
            "GuideTable": "dynamodb:GetItem dynamodb:PutItem",
            "AuditTable": "dynamodb:PutItem",
            "GuideExportQueue": "sqs:SendMessage",
        },
    ),
    "GuideStaffCreateZoneFunction": (
        ["POST /staff/guide/create-zone.json"],
        {**GUIDE_TABLE, **AUDITED, "GUIDE_EXPORT_QUEUE_URL": "GuideExportQueue"},
        {
            "GuideTable": "dynamodb:GetItem dynamodb:PutItem",
            "AuditTable": "dynamodb:PutItem",
            "GuideExportQueue": "sqs:SendMessage",
        },
    ),
    "GuideStaffGridFunction": (
        ["GET /staff/guide/grid.json"],
        GUIDE_TABLE,
        {"GuideTable": "dynamodb:BatchGetItem dynamodb:Query"},
    ),
    "GuideStaffImportsFunction": (["GET /staff/guide/imports.json"], GUIDE_TABLE, {"GuideTable": "dynamodb:Query"}),
    "GuideStaffReportFunction": (["GET /staff/guide/report.json"], GUIDE_TABLE, {"GuideTable": "dynamodb:GetItem"}),
    "GuideStaffUploadFunction": (
        ["POST /staff/guide/upload.json"],
        {**GUIDE_TABLE, "GUIDE_INBOX_BUCKET": "GuideInboxBucket", **AUDITED},
        {
            "GuideTable": "dynamodb:GetItem",
            "${GuideInboxBucket.Arn}/*": "s3:PutObject",
            "AuditTable": "dynamodb:PutItem",
        },
    ),
    "GuideStaffZonesFunction": (["GET /staff/guide/zones.json"], GUIDE_TABLE, {"GuideTable": "dynamodb:Query"}),
    "GuideTelecastInfoFunction": (
        ["GET /tvguide/2/telecastInfo.json", "GET /tvguide/2/telecastInfo.xml"],
        *GUIDE_READER,
    ),
    "GuideTvshowsFunction": (["GET /tvguide/2/tvshows.json", "GET /tvguide/2/tvshows.xml"], *GUIDE_READER),
    "GuideXmltvFunction": (
        ["GET /tvguide/2/xmltv.xml"],
        {**GUIDE_READER[0], "GUIDE_EXPORT_BUCKET": "GuideExportBucket"},
        {
            **GUIDE_READER[1],
            "${GuideExportBucket.Arn}/xmltv/*": "s3:GetObject",
            "GuideExportBucket": "s3:ListBucket",
        },
    ),
    "LauncherClickConsumerFunction": (
        [],
        {"LAUNCHER_TABLE": "LauncherTable"},
        {"LauncherTable": "dynamodb:PutItem dynamodb:UpdateItem"},
    ),
    "LauncherPosterFunction": (
        ["GET /launcher/1/poster.json", "GET /launcher/1/poster.xml"],
        {"LAUNCHER_TABLE": "LauncherTable", "REGISTRY_TABLE": "RegistryTable"},
        {
            "LauncherTable": "dynamodb:BatchGetItem dynamodb:Query",
            "RegistryTable": "dynamodb:BatchGetItem dynamodb:GetItem",
        },
    ),
    "LauncherPostersFunction": (
        ["GET /launcher/1/posters.json", "GET /launcher/1/posters.xml"],
        {"LAUNCHER_TABLE": "LauncherTable", "REGISTRY_TABLE": "RegistryTable"},
        {
            "LauncherTable": "dynamodb:BatchGetItem dynamodb:Query",
            "RegistryTable": "dynamodb:BatchGetItem dynamodb:GetItem",
        },
    ),
    "LauncherSnapshotFunction": (
        [],
        {"LAUNCHER_TABLE": "LauncherTable"},
        {"LauncherTable": "dynamodb:GetItem dynamodb:PutItem dynamodb:Query dynamodb:UpdateItem"},
    ),
    "LauncherStaffDailyFunction": (
        ["GET /staff/launcher/daily.json"],
        {"LAUNCHER_TABLE": "LauncherTable"},
        {"LauncherTable": "dynamodb:Query"},
    ),
    "LauncherStaffDecideFunction": (
        ["POST /staff/launcher/decisions.json"],
        {"LAUNCHER_TABLE": "LauncherTable", **AUDITED},
        {
            "LauncherTable": "dynamodb:BatchGetItem dynamodb:DeleteItem dynamodb:GetItem dynamodb:PutItem "
            "dynamodb:Query dynamodb:UpdateItem",
            "AuditTable": "dynamodb:PutItem",
        },
    ),
    "LauncherStaffModerationFunction": (
        ["GET /staff/launcher/moderation.json"],
        {"LAUNCHER_TABLE": "LauncherTable"},
        {"LauncherTable": "dynamodb:GetItem"},
    ),
    "LauncherStaffPostersFunction": (
        ["GET /staff/launcher/posters.json"],
        {"LAUNCHER_TABLE": "LauncherTable", "REGISTRY_TABLE": "RegistryTable"},
        {
            "LauncherTable": "dynamodb:BatchGetItem dynamodb:Query",
            "RegistryTable": "dynamodb:BatchGetItem dynamodb:GetItem",
        },
    ),
    "NicheContentStaffItemFunction": (
        ["GET /staff/niche-content/item.json"],
        {"NICHE_CONTENT_TABLE": "NicheContentTable"},
        {"NicheContentTable": "dynamodb:GetItem"},
    ),
    "NicheContentStaffQueueFunction": (
        ["GET /staff/niche-content/queue.json"],
        {"NICHE_CONTENT_TABLE": "NicheContentTable"},
        {"NicheContentTable": "dynamodb:Query", "${NicheContentTable.Arn}/index/attention": "dynamodb:Query"},
    ),
    "NicheContentStaffRetryFunction": (
        ["POST /staff/niche-content/retry.json"],
        {"NICHE_CONTENT_TABLE": "NicheContentTable", **AUDITED},
        {
            "NicheContentTable": "dynamodb:DeleteItem dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem",
            "AuditTable": "dynamodb:PutItem",
        },
    ),
    "NicheContentIntakeFunction": (
        [],
        {"NICHE_CONTENT_TABLE": "NicheContentTable"},
        {"NicheContentTable": "dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem"},
    ),
    "NicheContentListFunction": (
        ["GET /1/niche-content/list.json"],
        {"NICHE_CONTENT_TABLE": "NicheContentTable", "NICHE_CONTENT_API_KEY_IDS": "EncoderApiKey"},
        {"NicheContentTable": "dynamodb:Query"},
    ),
    "NicheContentSweeperFunction": (
        [],
        {"NICHE_CONTENT_TABLE": "NicheContentTable"},
        {
            "NicheContentTable": "dynamodb:PutItem dynamodb:UpdateItem",
            "${NicheContentTable.Arn}/index/attention": "dynamodb:Query",
        },
    ),
    "NicheContentUpdateStatusFunction": (
        ["POST /1/niche-content/updateStatus.json"],
        {"NICHE_CONTENT_TABLE": "NicheContentTable", "NICHE_CONTENT_API_KEY_IDS": "EncoderApiKey"},
        {"NicheContentTable": "dynamodb:DeleteItem dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem"},
    ),
    "PhoneChannelWorkerFunction": (
        [],
        {
            "PHONE_TABLE": "PhoneTable",
            "AUTH_TABLE": "AuthTable",
            "STATE_MACHINE_ARN": "PhoneConfirmationStateMachine",
            "PHONE_KEYS_SECRET": "PhoneKeysSecret",
            "PHONE_PROVIDERS": "PhoneProviders",
            "PHONE_PROVIDERS_SECRET": "PhoneProvidersSecret",
            "SMSRU_BASE_URL": "SmsRuBaseUrl",
            "SIM_PUSH_ENDPOINT": "SimPushEndpoint",
        },
        {
            "PhoneTable": "dynamodb:GetItem dynamodb:PutItem",
            "AuthTable": "dynamodb:PutItem",
            "PhoneKeysSecret": "secretsmanager:GetSecretValue",
            "PhoneProvidersSecret": "secretsmanager:GetSecretValue",
            "*": "sns:Publish states:SendTaskFailure states:SendTaskSuccess",
        },
    ),
    "PhoneCheckCodeFunction": (
        ["POST /phoneconfirm/2/checkCode"],
        {
            "PHONE_TABLE": "PhoneTable",
            "AUTH_TABLE": "AuthTable",
            "STATE_MACHINE_ARN": "PhoneConfirmationStateMachine",
            "PHONE_KEYS_SECRET": "PhoneKeysSecret",
        },
        {
            "PhoneTable": "dynamodb:GetItem dynamodb:PutItem",
            "AuthTable": "dynamodb:PutItem",
            "PhoneKeysSecret": "secretsmanager:GetSecretValue",
            "*": "states:SendTaskSuccess",
        },
    ),
    "PhoneConfirmFunction": (
        ["POST /phoneconfirm/2/confirm"],
        {
            "PHONE_TABLE": "PhoneTable",
            "AUTH_TABLE": "AuthTable",
            "STATE_MACHINE_ARN": "PhoneConfirmationStateMachine",
            "PHONE_KEYS_SECRET": "PhoneKeysSecret",
        },
        {
            "PhoneTable": "dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem",
            "PhoneConfirmationStateMachine": "states:StartExecution",
            "*": "states:SendTaskSuccess",
        },
    ),
    "PhoneVerifyFunction": (
        ["POST /phoneconfirm/2/verify"],
        {
            "PHONE_TABLE": "PhoneTable",
            "AUTH_TABLE": "AuthTable",
            "STATE_MACHINE_ARN": "PhoneConfirmationStateMachine",
            "PHONE_KEYS_SECRET": "PhoneKeysSecret",
        },
        {"PhoneTable": "dynamodb:GetItem dynamodb:PutItem", "*": "states:SendTaskSuccess"},
    ),
    "RegistryAreasFunction": (["GET /registry/2/areas.json", "GET /registry/2/areas.xml"], *REGISTRY_LIST),
    "RegistryContractorsFunction": (
        ["GET /registry/2/contractors.json", "GET /registry/2/contractors.xml"],
        *REGISTRY_LIST,
    ),
    "RegistryHubIsolationsFunction": (
        ["GET /registry/2/hubIsolations.json", "GET /registry/2/hubIsolations.xml"],
        {"REGISTRY_TABLE": "RegistryTable"},
        {"RegistryTable": "dynamodb:GetItem dynamodb:Query"},
    ),
    "RegistryHubsFunction": (["GET /registry/2/hubs.json", "GET /registry/2/hubs.xml"], *REGISTRY_LIST),
    "RegistryKnownInfoFunction": (
        ["POST /registry/2/knownInfo.json", "POST /registry/2/knownInfo.xml"],
        {"REGISTRY_TABLE": "RegistryTable", "REGISTRY_REPORTS_TABLE": "RegistryReportsTable"},
        {
            "RegistryTable": "dynamodb:BatchGetItem dynamodb:GetItem",
            "RegistryReportsTable": "dynamodb:PutItem dynamodb:UpdateItem",
        },
    ),
    "RegistryNotImplementedFunction": (["ANY /registry/2/{proxy+}"], {}, {}),
    "RegistryPrefixesFunction": (["GET /registry/2/prefixes.json", "GET /registry/2/prefixes.xml"], *REGISTRY_LIST),
    "RegistryStaffCheckFunction": (["POST /staff/registry/check.json"], {}, {}),
    "RegistryStaffUploadFunction": (
        ["POST /staff/registry/upload.json"],
        {**REGISTRY_REPORTS, "REGISTRY_UPLOAD_BUCKET": "RegistryUploadBucket"},
        {"RegistryReportsTable": "dynamodb:PutItem", "${RegistryUploadBucket.Arn}/registry/*": "s3:PutObject"},
    ),
    "RegistryStaffLoadFunction": (
        ["GET /staff/registry/load.json"],
        REGISTRY_REPORTS,
        {"RegistryReportsTable": "dynamodb:GetItem"},
    ),
    "RegistryLoadFunction": (
        [],
        {**REGISTRY_REPORTS, "REGISTRY_UPLOAD_BUCKET": "RegistryUploadBucket", **AUDITED},
        {
            "RegistryTable": "dynamodb:BatchGetItem dynamodb:BatchWriteItem dynamodb:GetItem dynamodb:PutItem "
            "dynamodb:Query dynamodb:UpdateItem",
            "RegistryReportsTable": "dynamodb:UpdateItem",
            "AuditTable": "dynamodb:PutItem",
            "${RegistryUploadBucket.Arn}/registry/*": "s3:GetObject",
        },
    ),
    "RegistryTerritoriesFunction": (
        ["GET /registry/2/territories.json", "GET /registry/2/territories.xml"],
        *REGISTRY_LIST,
    ),
    "RegistryWhereAmIFunction": (
        ["GET /registry/2/whereami.json", "GET /registry/2/whereami.xml"],
        {"REGISTRY_TABLE": "RegistryTable"},
        {"RegistryTable": "dynamodb:BatchGetItem dynamodb:GetItem"},
    ),
}


def cfn_lint_expansion(document: dict[str, Any]) -> dict[str, Any]:
    problems, expanded = language_extension(SimpleNamespace(template=document, regions=[REGION], filename=None))
    assert not problems, problems
    return expanded


def plain(node: Any) -> Any:
    """A `Fn::Sub` left with no variable is its string (cfn-lint writes it so, CloudFormation evaluates it so)."""
    if isinstance(node, dict):
        if list(node) == ["Fn::Sub"] and isinstance(node["Fn::Sub"], str) and "${" not in node["Fn::Sub"]:
            return node["Fn::Sub"]
        return {key: plain(value) for key, value in node.items()}
    if isinstance(node, list):
        return [plain(item) for item in node]
    return node


def named(value: Any) -> str:
    """The logical id or parameter a value names (`!Ref X`, `!GetAtt X.Arn`), a Sub's text, or the literal."""
    if isinstance(value, str):
        return value
    if "Fn::GetAtt" in value:
        return value["Fn::GetAtt"][0]
    return value.get("Ref") or value["Fn::Sub"]


def test_the_template_expands_as_cfn_lint_expands_it():
    reference = cfn_lint_expansion(DOCUMENT)
    ours = expand_language_extensions(DOCUMENT)
    for section in ("Resources", "Outputs", "Conditions"):
        assert plain(ours.get(section)) == plain(reference.get(section))


NESTED_LOOPS = {
    "Resources": {
        "Fn::ForEach::Functions": [
            "Function",
            ["AFunction", "BFunction"],
            {
                "${Function}Logs": {
                    "Type": "AWS::Logs::LogGroup",
                    "Properties": {"LogGroupName": {"Fn::Sub": "/ott/${AWS::StackName}/${Function}"}},
                },
                "Fn::ForEach::Alarms": [
                    "Metric",
                    ["Errors", "Throttles"],
                    {
                        "${Function}${Metric}Alarm": {
                            "Type": "AWS::CloudWatch::Alarm",
                            "Properties": {
                                "MetricName": {"Ref": "Metric"},
                                "Dimensions": [{"Name": "FunctionName", "Value": {"Ref": {"Fn::Sub": "${Function}"}}}],
                                "AlarmActions": [{"Ref": "AlarmTopic"}],
                            },
                        }
                    },
                ],
            },
        ]
    }
}


def alarm(function: str, metric: str) -> dict[str, Any]:
    dimensions = [{"Name": "FunctionName", "Value": {"Ref": function}}]
    properties = {"MetricName": metric, "Dimensions": dimensions, "AlarmActions": [{"Ref": "AlarmTopic"}]}
    return {"Type": "AWS::CloudWatch::Alarm", "Properties": properties}


def test_nested_loops_put_each_item_in_keys_sub_strings_and_refs_as_cloudformation_documents():
    """The identifier stands for the item in `${Identifier}`, alone in `Ref`, and a Ref of a Sub that is left
    with no variable names that resource; the stack's own variables stay for CloudFormation."""
    expected = {
        f"{function}Logs": {
            "Type": "AWS::Logs::LogGroup",
            "Properties": {"LogGroupName": {"Fn::Sub": f"/ott/${{AWS::StackName}}/{function}"}},
        }
        for function in ("AFunction", "BFunction")
    }
    expected |= {f"{f}{m}Alarm": alarm(f, m) for f in ("AFunction", "BFunction") for m in ("Errors", "Throttles")}
    assert plain(expand_language_extensions(NESTED_LOOPS)["Resources"]) == expected
    assert plain(cfn_lint_expansion(NESTED_LOOPS)["Resources"]) == expected


def test_ampersand_takes_the_item_without_its_non_alphanumeric_characters():
    document = {
        "Resources": {"Fn::ForEach::Topics": ["Name", ["a.b", "c-d"], {"Topic&{Name}": {"Type": "AWS::SNS::Topic"}}]}
    }
    expected = {"Topicab": {"Type": "AWS::SNS::Topic"}, "Topiccd": {"Type": "AWS::SNS::Topic"}}
    assert expand_language_extensions(document)["Resources"] == expected
    assert cfn_lint_expansion(document)["Resources"] == expected


def test_a_logical_id_made_twice_is_refused():
    document = {
        "Resources": {
            "Fn::ForEach::A": ["Name", ["X", "X"], {"Topic${Name}": {"Type": "AWS::SNS::Topic"}}],
        }
    }
    with pytest.raises(ValueError, match="TopicX is made twice"):
        expand_language_extensions(document)
    problems, _ = language_extension(SimpleNamespace(template=document, regions=[REGION], filename=None))
    assert problems


def test_a_collection_that_is_not_a_literal_list_is_refused_rather_than_guessed():
    document = {
        "Resources": {"Fn::ForEach::A": ["Name", {"Ref": "Names"}, {"Topic${Name}": {"Type": "AWS::SNS::Topic"}}]}
    }
    with pytest.raises(ValueError, match="literal list"):
        expand_language_extensions(document)


def test_the_language_extensions_transform_is_applied_and_sam_s_is_left():
    """What `make checkov` scans: the template as CloudFormation hands it to SAM, every resource in sight."""
    expanded = expand_language_extensions(DOCUMENT)
    assert DOCUMENT["Transform"] == ["AWS::LanguageExtensions", "AWS::Serverless-2016-10-31"]
    assert expanded["Transform"] == ["AWS::Serverless-2016-10-31"]
    assert expanded["Globals"] == DOCUMENT["Globals"]
    assert set(expanded["Resources"]) == set(TEMPLATE.resources)
    assert not any(key.startswith("Fn::ForEach") for key in expanded["Resources"])


def test_the_api_stage_name_is_read_back_so_the_transform_cannot_rename_the_stage():
    """AWS::LanguageExtensions folds `!Ref StageName` into a literal before SAM runs, and SAM names the stage of a
    literal name PlatformApi<name>Stage: a deployed stack's PlatformApiStage would get a second stage of the same
    name, which API Gateway refuses. Read back from a resource, the name stays an intrinsic no transform folds."""
    assert TEMPLATE.resources["PlatformApi"]["Properties"]["StageName"] == {"Fn::GetAtt": ["ApiStageName", "Value"]}
    assert TEMPLATE.resources["ApiStageName"]["Properties"]["Value"] == {"Ref": "StageName"}


def test_globals_reach_a_function_by_sam_s_rules():
    """SAM: the function's own value wins, maps are merged, lists are joined (the Globals' first)."""
    document = {
        "Globals": {
            "Function": {
                "Handler": "app.lambda_handler",
                "Timeout": 10,
                "Layers": ["Shared"],
                "Environment": {"Variables": {"A": "global", "B": "global"}},
            }
        },
        "Resources": {
            "F": {
                "Type": "AWS::Serverless::Function",
                "Properties": {"Handler": "app.other", "Layers": ["Own"], "Environment": {"Variables": {"B": "own"}}},
            }
        },
    }
    properties = Template(document).resources["F"]["Properties"]
    assert properties["Handler"] == "app.other"
    assert properties["Timeout"] == 10
    assert properties["Layers"] == ["Shared", "Own"]
    assert properties["Environment"]["Variables"] == {"A": "global", "B": "own"}


def test_every_function_runs_the_global_handler_but_the_authorizers():
    handlers = {function.logical_id: function.attribute for function in TEMPLATE.functions()}
    assert handlers.pop("AuthBearerAuthorizerFunction") == "required"
    assert handlers.pop("AuthOptionalBearerAuthorizerFunction") == "optional"
    assert set(handlers.values()) == {"lambda_handler"}


def test_no_function_came_or_went():
    assert {function.logical_id for function in TEMPLATE.functions()} == set(FUNCTIONS)


@pytest.mark.parametrize("logical_id", sorted(FUNCTIONS))
def test_each_function_keeps_its_routes_environment_and_permissions(logical_id):
    routes, environment, allowed = FUNCTIONS[logical_id]
    function = next(function for function in TEMPLATE.functions() if function.logical_id == logical_id)
    properties = TEMPLATE.resources[logical_id]["Properties"]
    assert sorted(f"{route.method} {route.path}" for route in function.routes) == routes
    variables = properties["Environment"]["Variables"]
    assert {name: named(value) for name, value in variables.items() if name not in SHARED_VARIABLES} == environment
    granted: dict[str, set[str]] = {}
    for statement in [statement for policy in properties.get("Policies", []) for statement in policy["Statement"]]:
        resources = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
        for resource in resources:
            granted.setdefault(named(resource), set()).update(statement["Action"])
    assert granted == {resource: set(actions.split()) for resource, actions in allowed.items()}


def test_every_function_alarm_is_alike_but_for_its_function_and_metric():
    """The services' loops each write the alarm out: they must not drift. Any error (an unhandled exception or a
    timeout) or throttle in five minutes alarms, and the alarm says so to the operators' topic."""
    alarms = {
        name: dict(spec["Properties"])
        for name, spec in TEMPLATE.of_type("AWS::CloudWatch::Alarm").items()
        if spec["Properties"].get("Namespace") == "AWS/Lambda"
    }
    assert len(alarms) == 2 * len(FUNCTIONS)
    for name, properties in alarms.items():
        ((dimension),) = properties.pop("Dimensions")
        function, metric = dimension["Value"]["Ref"], properties.pop("MetricName")
        assert name == f"{function}{metric}Alarm" and dimension["Name"] == "FunctionName"
        assert plain(properties.pop("AlarmDescription")) == f"Lambda {metric} of {function} in five minutes"
        assert properties == {
            "Namespace": "AWS/Lambda",
            "Statistic": "Sum",
            "Period": 300,
            "EvaluationPeriods": 1,
            "ComparisonOperator": "GreaterThanThreshold",
            "Threshold": 0,
            "TreatMissingData": "notBreaching",
            "AlarmActions": [{"Ref": "AlarmTopic"}],
            "OKActions": [{"Ref": "AlarmTopic"}],
        }
