import Foundation
import Testing
import TestSupport

/// docs/examples/k8s (issue 41, item 8): every manifest is valid Kubernetes for kubernetes-validate
/// (its schemas offline, strict, so a misspelled field fails), the Prometheus config in it is valid
/// for promtool, and the manifests say what docs/container.md says they do (non-root, read-only
/// root, serve's probes, the relabelling aimed at the serve Service, `--shard auto/N` matching the
/// Job's completions). scripts/test-image runs the same manifests' args in containers.
@Suite struct K8sManifestTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/examples/k8s")

    static func manifests() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".yaml") }.sorted()
            .map { directory.appendingPathComponent($0).path }
    }

    /// `.ci/run` installs kubernetes-validate in its own virtual environment of /usr/bin/python3
    /// (docs/container.md says why); KUBERNETES_VALIDATE names another.
    static func kubernetesValidate() -> String? {
        let environment = ProcessInfo.processInfo.environment
        return [environment["KUBERNETES_VALIDATE"], "/opt/atsprobe-ci/kubernetes-validate/bin/kubernetes-validate",
                "/usr/local/bin/kubernetes-validate", "/usr/bin/kubernetes-validate"]
            .compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A tool the check needs: RequiredTool's rule (under CI its absence fails the test; .ci/run installs it).
    static func required(_ path: String?, _ name: String, install: String) throws -> String? {
        try RequiredTool.executable(path.map { [$0] } ?? [], install: install, for: "K8sManifestTests: \(name)")
    }

    static let installValidate = "bash .ci/run, or: /usr/bin/python3 -m venv /opt/atsprobe-ci/kubernetes-validate && /opt/atsprobe-ci/kubernetes-validate/bin/pip install kubernetes-validate"

    /// Strict, against the oldest Kubernetes docs/container.md names and kubernetes-validate's newest.
    @Test(arguments: ["1.30", "1.37"])
    func everyManifestIsValidKubernetes(version: String) async throws {
        guard let tool = try Self.required(Self.kubernetesValidate(), "kubernetes-validate", install: Self.installValidate) else { return }
        let files = try Self.manifests()
        #expect(files.map { URL(fileURLWithPath: $0).lastPathComponent }
                == ["audit-cronjob.yaml", "audit-indexed-job.yaml", "prometheus.yaml", "serve.yaml", "targets.yaml"])
        let run = try await ChildProcess.run(tool, ["--strict", "--kubernetes-version", version] + files, timeout: 120)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        // One line per resource: 10 in the five files.
        #expect(lines.filter { $0.hasPrefix("INFO ") && $0.contains(" passed for resource ") }.count == 10, "\(run.stdout)")
        #expect(!run.stdout.contains("ERROR") && !run.stdout.contains("WARN"), "\(run.stdout)\(run.stderr)")
    }

    /// The validation can fail: one misspelled field in a copy of serve.yaml is refused, named.
    @Test func aMisspelledFieldFailsTheValidation() async throws {
        guard let tool = try Self.required(Self.kubernetesValidate(), "kubernetes-validate", install: Self.installValidate) else { return }
        let serve = try String(contentsOfFile: Self.directory.appendingPathComponent("serve.yaml").path, encoding: .utf8)
        #expect(serve.contains("readOnlyRootFilesystem: true"))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bad = try directory.write("serve.yaml", serve.replacingOccurrences(of: "readOnlyRootFilesystem", with: "readOnlyRootFileSystem"))
        let run = try await ChildProcess.run(tool, ["--strict", bad], timeout: 120)
        #expect(run.status != 0)
        #expect(run.stdout.contains("deployment/atsprobe-serve") && run.stdout.contains("'readOnlyRootFileSystem' was unexpected"),
                "\(run.stdout)\(run.stderr)")
    }

    /// What the manifests must say, read with Debian's python3-yaml: each failure one line.
    static let checks = #"""
    import sys, yaml
    k8s = sys.argv[1]
    def load(name): return [d for d in yaml.safe_load_all(open(f"{k8s}/{name}")) if d]
    def one(docs, kind): return next(d for d in docs if d["kind"] == kind)
    failures = []
    def check(ok, what):
        if not ok: failures.append(what)

    def hardened(name, pod):
        context = pod.get("securityContext", {})
        check(context.get("runAsNonRoot") is True and context.get("runAsUser") == 10001, f"{name}: not runAsNonRoot as 10001 (the image's user)")
        check(pod.get("automountServiceAccountToken") is False, f"{name}: mounts a service account token")
        for c in pod["containers"]:
            sc = c.get("securityContext", {})
            check(sc.get("readOnlyRootFilesystem") is True, f"{name}: root filesystem not read-only")
            check(sc.get("allowPrivilegeEscalation") is False, f"{name}: privilege escalation allowed")
            check(sc.get("capabilities", {}).get("drop") == ["ALL"], f"{name}: capabilities not all dropped")
            check("command" not in c, f"{name}: overrides the image's entrypoint")
            check(c.get("resources", {}).get("requests") and c["resources"].get("limits", {}).get("memory"), f"{name}: no requests or memory limit")
        return pod["containers"][0]

    serve = load("serve.yaml")
    deployment, service, configmap = one(serve, "Deployment"), one(serve, "Service"), one(serve, "ConfigMap")
    pod = deployment["spec"]["template"]["spec"]
    container = hardened("serve.yaml", pod)
    args = container["args"]
    check(args[0] == "serve" and "--config" in args, "serve.yaml: args are not serve --config FILE")
    config_path = args[args.index("--config") + 1] if "--config" in args else ""
    mount = next((m["mountPath"] for m in container["volumeMounts"] if m["name"] == "config"), "")
    key = config_path[len(mount) + 1:] if config_path.startswith(mount + "/") else None
    check(key in configmap["data"], f"serve.yaml: --config {config_path} is not the ConfigMap's key under {mount}")
    config = yaml.safe_load(configmap["data"].get(key, "{}"))
    port = int(config.get("listen", ":0").rsplit(":", 1)[1])
    check(config.get("listen", "").startswith("0.0.0.0:"), "serve.yaml: serve does not listen on the pod's address")
    check(config.get("allow"), "serve.yaml: no allow list (serve would probe nothing)")
    check("default" in config.get("modules", {}), "serve.yaml: no default module")
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    check(ports.get("http") == port, f"serve.yaml: containerPort {ports} is not the config's {port}")
    check(container["readinessProbe"]["httpGet"]["path"] == "/-/ready", "serve.yaml: readiness probe not /-/ready")
    check(container["livenessProbe"]["httpGet"]["path"] == "/-/healthy", "serve.yaml: liveness probe not /-/healthy")
    check(service["spec"]["selector"] == deployment["spec"]["template"]["metadata"]["labels"], "serve.yaml: the Service selects other pods")
    address = f"{service['metadata']['name']}.monitoring.svc:{service['spec']['ports'][0]['port']}"

    prometheus = load("prometheus.yaml")
    scrape = yaml.safe_load(prometheus[0]["data"]["prometheus.yml"])
    probes = [j for j in scrape["scrape_configs"] if j.get("metrics_path") == "/probe"]
    check(len(probes) == 2, "prometheus.yaml: not two /probe jobs (static and file_sd)")
    for job in probes:
        rules = job["relabel_configs"]
        check({"source_labels": ["__address__"], "target_label": "__param_target"} in rules, f"{job['job_name']}: __address__ not relabelled to __param_target")
        check({"source_labels": ["__param_target"], "target_label": "instance"} in rules, f"{job['job_name']}: the target is not the instance label")
        check({"target_label": "__address__", "replacement": address} in rules, f"{job['job_name']}: __address__ not replaced by the Service {address}")
    exporter = [j for j in scrape["scrape_configs"] if j.get("metrics_path", "/metrics") == "/metrics"]
    check(any(address in s["targets"] for j in exporter for s in j.get("static_configs", [])), "prometheus.yaml: no job scrapes the exporter's /metrics")

    job = one(load("audit-indexed-job.yaml"), "Job")
    container = hardened("audit-indexed-job.yaml", job["spec"]["template"]["spec"])
    args = container["args"]
    check(job["spec"]["completionMode"] == "Indexed", "audit-indexed-job.yaml: not an Indexed Job")
    check(args[:1] == ["audit"] and "--shard" in args and args[args.index("--shard") + 1] == f"auto/{job['spec']['completions']}",
          "audit-indexed-job.yaml: --shard is not auto/COMPLETIONS")
    check("--output" in args and "$(JOB_COMPLETION_INDEX)" in args[args.index("--output") + 1], "audit-indexed-job.yaml: one output file per index")
    check(args[args.index("--fail-on") + 1] == "none" if "--fail-on" in args else False, "audit-indexed-job.yaml: a finding would fail (and retry) the pod")

    cron = one(load("audit-cronjob.yaml"), "CronJob")
    container = hardened("audit-cronjob.yaml", cron["spec"]["jobTemplate"]["spec"]["template"]["spec"])
    check(container["args"][:1] == ["audit"], "audit-cronjob.yaml: not an audit")
    targets = load("targets.yaml")
    check(one(targets, "ConfigMap")["metadata"]["name"] == "atsprobe-targets" and one(targets, "PersistentVolumeClaim")["metadata"]["name"] == "atsprobe-results",
          "targets.yaml: the names the jobs mount")
    images = {c["image"] for pod in [pod, job["spec"]["template"]["spec"], cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]] for c in pod["containers"]}
    check(len(images) == 1, f"the manifests name different images: {images}")
    print("\n".join(failures))
    """#

    @Test func theManifestsSayWhatTheDocsSay() async throws {
        let run = try await ChildProcess.run("/usr/bin/python3", ["-c", Self.checks, Self.directory.path], timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(run.stdout)")
    }

    /// Prometheus' own checker over the scrape config the ConfigMap carries.
    @Test func thePrometheusConfigIsValid() async throws {
        guard let promtool = try ForecastCommandTests.promtool(for: "K8sManifestTests: promtool check config") else { return }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let extract = try await ChildProcess.run("/usr/bin/python3", ["-c", """
            import sys, yaml
            print(next(yaml.safe_load_all(open(sys.argv[1])))["data"]["prometheus.yml"], end="")
            """, Self.directory.appendingPathComponent("prometheus.yaml").path], timeout: 60)
        #expect(extract.status == 0, "\(extract.stderr)")
        let file = try directory.write("prometheus.yml", extract.stdout)
        let check = try await ChildProcess.run(promtool, ["check", "config", "--syntax-only", file], timeout: 60)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("SUCCESS"), "\(check.stdout)")
    }
}
