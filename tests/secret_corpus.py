"""A corpus of secrets as people write them in notes, and of near misses that are not.

Each family is a few sentence templates in the voice of a memory file ("the
staging db is postgres://app:...@db:5432/app"); random parts are written
``[[alphabet:length]]`` and filled by :func:`memdir.team.secret_rules.render_example`
with a different seed per sample, so the bodies are random but the corpus is
the same on every run. The templates are written independently of the rule
table's own examples: the corpus measures the rules, it does not restate them.

Used by ``tests/test_secret_corpus.py`` (coverage and false positives) and by
``benchmarks/secret_coverage.py`` (the same numbers, plus throughput).
"""

from __future__ import annotations

from dataclasses import dataclass

from memdir.team.secret_rules import render_example

__all__ = ["FAMILIES", "NEAR_MISSES", "Sample", "near_miss_samples", "secret_samples"]

# family -> sentence templates; each template is one way a note holds the secret.
FAMILIES: dict[str, tuple[str, ...]] = {
    "aws access key id": (
        "The deploy user's access key is AKIA[[base32:16]] (rotate quarterly).",
        "temporary creds: ASIA[[base32:16]]",
    ),
    "aws secret key in prose": (
        "aws secret key is [[b64:40]] - same account as prod",
        "AWS secret access key: [[b64:40]]",
        "export AWS_SECRET_ACCESS_KEY=[[b64:40]]",
    ),
    "gcp api key": ("Maps JS key: AIza[[b64url:35]]",),
    "gcp service account": (
        '{"type": "service_account", "project_id": "acme", "private_key": "-----BEGIN PRIVATE '
        'KEY-----\\n[[b64:64]]\\n[[b64:64]]\\n-----END PRIVATE KEY-----\\n"}',
    ),
    "google oauth secret": ("Google OAuth client secret GOCSPX-[[b64url:28]] for the web app",),
    "azure ad secret": ("app registration secret: [[alnum:3]]7Q~[[b64url:34]]",),
    "azure storage connection string": (
        "Blob storage conn string: DefaultEndpointsProtocol=https;AccountName=acmelogs;"
        "AccountKey=[[b64:86]]==;EndpointSuffix=core.windows.net",
    ),
    "azure service bus connection string": (
        "orders queue: Endpoint=sb://acme-orders.servicebus.windows.net/;SharedAccessKeyName="
        "send;SharedAccessKey=[[b64:43]]=",
    ),
    "azure sas url": (
        "upload with https://acme.blob.core.windows.net/in/x.csv?sv=2023-01-03&se=2026-02-01"
        "&sr=b&sp=rw&sig=[[alnum:44]]%3D",
    ),
    "azure devops pat": ("ADO PAT for the pipeline is [[lbase32:52]]",),
    "digitalocean token": ("DO token dop_v1_[[hex:64]]",),
    "alibaba key": ("aliyun access key LTAI[[alnum:20]]",),
    "heroku api key": ("Heroku API key: HRKU-AA[[b64url:58]]", "HEROKU_API_KEY=[[uuid]]"),
    "fly.io token": ("fly tokens create deploy gave FlyV1 fm2_[[b64:150]]",),
    "vercel token": ("vercel token: [[alnum:24]]",),
    "netlify token": ("Netlify personal token is nfp_[[alnum:40]]",),
    "cloudflare token": ("Cloudflare API token = [[b64url:40]]",),
    "supabase token": ("supabase access token sbp_[[hex:40]]",),
    "databricks token": ("Databricks PAT dapi[[hex:32]]",),
    "anthropic key": ("Claude key for evals: sk-ant-api03-[[b64url:93]]AA",),
    "openai key": ("OpenAI project key sk-proj-[[b64url:74]]T3BlbkFJ[[b64url:74]]",),
    "hugging face token": ("HF read token hf_[[letters:34]]",),
    "groq key": ("groq: gsk_[[alnum:52]]",),
    "replicate token": ("replicate token r8_[[alnum:37]]",),
    "perplexity key": ("pplx key pplx-[[alnum:48]]",),
    "github pat": (
        "CI bot token ghp_[[alnum:36]]",
        "fine-grained: github_pat_[[alnum:22]]_[[alnum:59]]",
    ),
    "github app token in url": (
        "git remote set-url origin https://x-access-token:ghs_[[alnum:36]]@github.com/acme/api",
    ),
    "gitlab token": ("GitLab PAT glpat-[[b64url:20]]", "runner token glrt-[[b64url:20]]"),
    "bitbucket app password": ("bitbucket app password ATBB[[alnum:32]]",),
    "atlassian api token": ("Jira API token ATATT3xFfGF0[[b64url:183]]",),
    "vault token": ("vault login hvs.[[b64url:95]]",),
    "doppler token": ("Doppler service token dp.st.prd.[[alnum:43]]",),
    "1password service account": ("OP_SERVICE_ACCOUNT_TOKEN=ops_eyJ[[b64:320]]",),
    "infisical token": ("infisical service token st.[[hex:24]].[[hex:32]].[[hex:32]]",),
    "slack bot token": ("Slack bot: xoxb-[[digits:12]]-[[digits:13]]-[[alnum:24]]",),
    "slack webhook": (
        "alerts webhook https://hooks.slack.com/services/T[[ualnum:8]]/B[[ualnum:10]]/[[alnum:24]]",
    ),
    "discord bot token": ("discord bot token: N[[b64url:25]].[[b64url:6]].[[b64url:38]]",),
    "discord webhook": (
        "deploy notices -> https://discord.com/api/webhooks/[[digits:18]]/[[b64url:68]]",
    ),
    "telegram bot token": ("telegram bot [[digits:10]]:AA[[b64url:33]]",),
    "teams webhook": (
        "Teams channel hook https://acme.webhook.office.com/webhookb2/[[uuid]]@[[uuid]]/"
        "IncomingWebhook/[[hex:32]]/[[uuid]]",
    ),
    "twilio": ("Twilio API key SK[[hex:32]]", "TWILIO_AUTH_TOKEN=[[hex:32]]"),
    "sendgrid": ("SendGrid key SG.[[b64url:22]].[[b64url:43]]",),
    "mailgun": ("mailgun private key key-[[hex:32]]",),
    "mailchimp": ("mailchimp key [[hex:32]]-us14",),
    "brevo": ("brevo xkeysib-[[hex:64]]-[[alnum:16]]",),
    "stripe secret key": ("Stripe live key sk_live_[[alnum:99]]",),
    "stripe webhook secret": ("Stripe webhook signing secret whsec_[[alnum:32]]",),
    "shopify": ("Shopify admin token shpat_[[hex:32]]",),
    "square": ("Square prod token EAAA[[b64url:60]]",),
    "npm": ("npm publish token npm_[[alnum:36]]",),
    "pypi": ("PyPI token pypi-AgEIcHlwaS5vcmc[[b64url:150]]",),
    "rubygems": ("rubygems_[[hex:48]] is the gem push key",),
    "docker hub": ("docker hub PAT dckr_pat_[[b64url:27]]",),
    "terraform cloud": ("TFC token [[alnum:14]].atlasv1.[[b64url:67]]",),
    "pulumi": ("pulumi token pul-[[hex:40]]",),
    "postman": ("postman key PMAK-[[hex:24]]-[[hex:34]]",),
    "linear": ("linear key lin_api_[[alnum:40]]",),
    "notion": ("Notion integration secret ntn_[[digits:11]][[alnum:35]]",),
    "airtable": ("airtable PAT pat[[alnum:14]].[[hex:64]]",),
    "figma": ("figma token figd_[[b64url:40]]",),
    "sonarqube": ("sonar token sqp_[[hex:40]]",),
    "grafana": ("Grafana SA token glsa_[[alnum:32]]_[[hex:8]]",),
    "sentry": ("sentry auth token sntryu_[[hex:64]]",),
    "datadog": ("Datadog API key is [[hex:32]]",),
    "new relic": ("New Relic user key NRAK-[[ualnum:27]]",),
    "dynatrace": ("dynatrace dt0c01.[[ualnum:24]].[[ualnum:64]]",),
    "rsa private key": (
        "old deploy key:\n-----BEGIN RSA PRIVATE KEY-----\n[[b64:64]]\n[[b64:64]]\n[[b64:64]]\n"
        "-----END RSA PRIVATE KEY-----",
    ),
    "openssh private key": (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n[[b64:70]]\n[[b64:70]]\n"
        "-----END OPENSSH PRIVATE KEY-----",
    ),
    "ec private key": (
        "-----BEGIN EC PRIVATE KEY-----\n[[b64:64]]\n[[b64:40]]==\n-----END EC PRIVATE KEY-----",
    ),
    "pgp private key": (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n[[b64:64]]\n[[b64:64]]\n"
        "-----END PGP PRIVATE KEY BLOCK-----",
    ),
    "age secret key": ("age identity AGE-SECRET-KEY-1[[bech32:58]]",),
    "jwt": (
        "sample session token eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJ[[b64url:90]].[[b64url:86]]",
    ),
    "postgres url": (
        "the staging db is postgres://app:[[alnum:18]]@db.staging:5432/app",
        "DATABASE_URL=postgresql://svc_orders:[[pw:16]]@10.2.0.7/orders",
    ),
    "mysql url": ("legacy mysql: mysql://root:[[alnum:14]]@mysql-1:3306/shop",),
    "mongodb url": (
        "Atlas: mongodb+srv://api:[[alnum:22]]@cluster0.x1y2z.mongodb.net/prod?retryWrites=true",
    ),
    "redis url": ("cache is rediss://default:[[alnum:32]]@redis.internal:6380",),
    "amqp url": ("rabbit: amqp://orders:[[alnum:20]]@mq.internal:5672/prod",),
    "https basic url": ("mirror at https://ci:[[alnum:20]]@nexus.internal/repository/pypi",),
    "password in prose": (
        "the admin password for the staging console is [[pw:14]]",
        "DB password: [[pw:12]]",
        "PGPASSWORD=[[alnum:16]] psql -h db -U app",
    ),
    "ado.net connection string": (
        "Server=tcp:acme.database.windows.net,1433;Database=orders;User ID=app;"
        "Password=[[alnum:20]];Encrypt=True",
    ),
    "generic api key": (
        "the billing api key is [[alnum:32]]",
        "X-API-Key: [[hex:40]]",
        "internal service token = [[b64url:40]]",
    ),
    "oauth client secret": ("GitHub OAuth app client secret: [[hex:40]]",),
    "bearer header": ("curl -H 'Authorization: Bearer [[b64url:64]]' https://api.internal/v2",),
    "curl user password": ("curl -u admin:[[alnum:18]] https://jenkins.internal/job/x",),
    "session secret": ("SECRET_KEY_BASE=[[hex:128]]",),
    "hubspot private app": ("HubSpot private app token pat-eu1-[[uuid]]",),
    "openshift token": ("oc login --token=sha256~[[b64url:43]] --server=https://api.ocp:6443",),
    "mapbox secret token": ("mapbox secret sk.eyJ[[b64url:50]].[[b64url:22]]",),
    "meta page token": ("Meta page access token EAAG[[alnum:160]]",),
    "abbreviated password": ("pw for the staging box: [[pw:14]]", "login admin, pass: [[pw:12]]"),
    "credentials in a table": ("| staging | admin | [[pw:14]] |",),
    "password in a sentence": ("I set the router password to [[pw:12]] yesterday",),
}


# Text that must not be flagged: placeholders, documentation examples, hashes,
# ids, references to where a secret lives, and prose about credentials.
NEAR_MISSES: tuple[str, ...] = (
    "The docs' sample key AKIAIOSFODNN7EXAMPLE is not a real key.",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "Fixed in commit [[hex:40]] (see #482).",
    "merge base is [[hex:40]]",
    "sha256: [[hex:64]]",
    "The artifact's sha256 is [[hex:64]].",
    "sha512-[[b64:86]]==",
    "request id [[uuid]] reproduced it",
    "trace: [[uuid]] span [[hex:16]]",
    "user id [[uuid]]",
    "The header is base64 of 'hello world': aGVsbG8gd29ybGQ=",
    "base64 of the config: ZGVidWc9dHJ1ZQpsb2dfbGV2ZWw9aW5mbw==",
    "password: ${DB_PASSWORD}",
    "token: $GITHUB_TOKEN",
    "api_key: {{ vault_api_key }}",
    "secret: <your-secret-here>",
    "token: <token>",
    "password: changeme",
    "API_KEY=your-api-key",
    "export OPENAI_API_KEY=sk-...",
    "password: ********",
    "token: xxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "secret: redacted",
    "api key: [REDACTED]",
    "password = os.environ['DB_PASSWORD']",
    "token = os.getenv('SLACK_TOKEN')",
    "key = process.env.STRIPE_KEY",
    "The deploy token lives in 1Password under 'CI deploy'.",
    "Secrets come from Vault at runtime: vault kv get -field=token secret/ci",
    "Passwords are rotated every 90 days.",
    "The token is valid for 3600 seconds.",
    "The password policy requires 12-characters minimum.",
    "Never commit the .env file; the secret scanner blocks tokens.",
    "Use `gh auth token` to get a token.",
    "Authorization: Bearer <token>",
    "Authorization: Bearer $TOKEN",
    "Authorization: Basic dXNlcjpwYXNzd29yZA==",
    "postgres://user:password@localhost:5432/mydb",
    "postgres://app:${DB_PASSWORD}@db:5432/app",
    "postgres://postgres:postgres@localhost/test",
    "mongodb://localhost:27017/test",
    "redis://localhost:6379/0",
    "amqp://guest:guest@localhost:5672/",
    "https://github.com/acme/api/pull/123",
    "git clone git@github.com:acme/api.git",
    "https://user@bitbucket.org/acme/api.git",
    "ghp_ tokens are classic PATs; fine-grained ones start with github_pat_",
    "Stripe test key sk_test_[[alnum:24]] is fine for local dev.",
    "TWILIO_ACCOUNT_SID=AC[[hex:32]]",
    "-----BEGIN CERTIFICATE-----\n[[b64:64]]\n[[b64:64]]\n-----END CERTIFICATE-----",
    "-----BEGIN PUBLIC KEY-----\n[[b64:64]]\n[[b64:20]]==\n-----END PUBLIC KEY-----",
    "ssh-ed25519 [[b64:68]] alice@laptop",
    "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
    "age recipient age1[[lbase32:58]]",
    "JWT header eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 means HS256",
    "secret_name: prod-db-credentials-2024",
    "token_url: https://auth.acme.dev/oauth/token",
    "client_id: [[hex:20]]",
    "the api key id is [[uuid]]",
    "secret.yaml sha256: [[hex:64]]",
    "tokens: 200k context window",
    "slack channel #deploys; webhook is in the vault",
    "The webhook signing secret is in AWS Secrets Manager (prod/stripe/whsec).",
    "cache key: user:[[digits:8]]:profile",
    "The primary key is (tenant_id, id).",
    "version v1.0-rc1 shipped",
    "docker image acme/api@sha256:[[hex:64]]",
    "npm_config_registry=https://registry.npmjs.org/",
    "password: hunter2",
    "password hash: $2b$12$[[b64:53]]",
    "the SSO token endpoint is /oauth2/v1/token",
    "DB_PASSWORD is set in the Heroku config, never in code.",
    "mysql://root:<password>@localhost/shop",
    "curl -u user:$API_TOKEN https://api.internal",
    "Azurite: AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6"
    "IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    "SharedAccessKey=<key>",
    "Example: postgresql://USER:PASSWORD@HOST:PORT/DB",
    "git push -u origin main",
    "the secret sauce is cache-aside with a 5-minute TTL",
    "risk-based rollout; ask the on-call before you skip the task",
)


@dataclass(frozen=True, kw_only=True)
class Sample:
    """One rendered piece of text and what it stands for."""

    family: str
    text: str
    parts: tuple[str, ...] = ()


def secret_samples(per_template: int = 3) -> list[Sample]:
    """Every family's templates, each rendered ``per_template`` times with fresh random bodies."""
    return [
        Sample(family=family, text=render_example(template, f"corpus-{seed}"))
        for family, templates in FAMILIES.items()
        for template in templates
        for seed in range(per_template)
    ]


def near_miss_samples(per_template: int = 2) -> list[Sample]:
    """Every near miss, rendered ``per_template`` times (once when it has no random part)."""
    samples = []
    for template in NEAR_MISSES:
        seeds = range(per_template) if "[[" in template else range(1)
        samples += [
            Sample(family="near miss", text=render_example(template, f"near-{seed}"))
            for seed in seeds
        ]
    return samples
