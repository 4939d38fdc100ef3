//! A second Docker engine of the test's own: its own `dockerd` on its own socket, data root and
//! exec root, with no bridge and no iptables rules, so stopping it (or making it a swarm) never
//! touches the shared engine other tests and people use. Images are copied in from the shared
//! engine, so nothing is built or pulled.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::StreamExt;

use crate::util::*;

pub struct SecondEngine {
    pub dir: PathBuf,
    dockerd: Option<Child>,
}

impl SecondEngine {
    /// Why a second engine cannot be started here (it needs root and `dockerd`), if it cannot.
    pub fn unavailable() -> Option<String> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Some("a second dockerd needs root".into());
        }
        if !on_path("unshare") || !on_path("ip") {
            return Some("no unshare (util-linux) or ip (iproute2) on PATH".into());
        }
        (!on_path("dockerd")).then(|| "no dockerd on PATH".into())
    }

    /// Starts an engine under a fresh folder in /tmp (short paths: unix sockets have a length
    /// limit).
    pub fn start(name: &str) -> SecondEngine {
        let dir = PathBuf::from(format!("/tmp/verdict-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut engine = SecondEngine { dir, dockerd: None };
        engine.launch();
        engine
    }

    /// `DOCKER_HOST` for this engine.
    pub fn host(&self) -> String {
        format!("unix://{}", self.dir.join("docker.sock").display())
    }

    fn launch(&mut self) {
        let dir = &self.dir;
        let log = std::fs::OpenOptions::new().create(true).append(true).open(dir.join("dockerd.log")).unwrap();
        // Its own network namespace too: a dockerd started with `--bridge=none` deletes the host's
        // `docker0` bridge (the shared engine's), which breaks every build on the shared engine.
        // `unshare` execs dockerd in place, so the child is dockerd itself.
        // In the new namespace only loopback exists, and it starts down: bring it up (the swarm
        // and the test's registry listen there), then become dockerd.
        let child = Command::new("unshare")
            .args(["--net", "--", "sh", "-c", "ip link set lo up && exec dockerd \"$@\"", "sh"])
            .arg(format!("--host={}", self.host()))
            .arg(format!("--data-root={}", dir.join("data").display()))
            .arg(format!("--exec-root={}", dir.join("exec").display()))
            .arg(format!("--pidfile={}", dir.join("docker.pid").display()))
            .args(["--bridge=none", "--iptables=false", "--ip6tables=false", "--ip-masq=false"])
            .args(["--storage-driver=overlay2", "--cgroup-parent=verdict-test-engines"])
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("dockerd starts");
        self.dockerd = Some(child);
        let started = Instant::now();
        while !self.answers() {
            assert!(started.elapsed() < Duration::from_secs(60), "the second engine did not start: {}", self.log());
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The process id of this engine's dockerd (the holder of its network namespace).
    pub fn pid(&self) -> u32 {
        self.dockerd.as_ref().expect("the engine runs").id()
    }

    pub fn answers(&self) -> bool {
        let Ok(docker) = bollard::Docker::connect_with_unix(
            self.dir.join("docker.sock").to_str().unwrap(),
            5,
            bollard::API_DEFAULT_VERSION,
        ) else {
            return false;
        };
        runtime().block_on(async { docker.ping().await.is_ok() })
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("dockerd.log")).unwrap_or_default()
    }

    /// Stops the engine as an operator (or a crash of the host's service) would: SIGTERM, and
    /// waits for the process to end.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.dockerd.take() {
            // SAFETY: signalling the dockerd this test started.
            unsafe {
                libc::kill(child.id() as i32, libc::SIGTERM);
            }
            let started = Instant::now();
            while child.try_wait().ok().flatten().is_none() {
                if started.elapsed() > Duration::from_secs(60) {
                    let _ = child.kill();
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }

    pub fn restart(&mut self) {
        self.stop();
        self.launch();
    }

    fn client(&self) -> bollard::Docker {
        bollard::Docker::connect_with_unix(
            self.dir.join("docker.sock").to_str().unwrap(),
            600,
            bollard::API_DEFAULT_VERSION,
        )
        .unwrap()
    }

    /// Makes this engine a single-node swarm, on loopback ports of its own (never the default
    /// 2377 and 4789 another swarm on the machine may hold).
    pub fn init_swarm(&self) {
        let port = free_port();
        let request = bollard::models::SwarmInitRequest {
            listen_addr: Some(format!("127.0.0.1:{port}")),
            advertise_addr: Some(format!("127.0.0.1:{port}")),
            data_path_port: Some(free_port() as u32),
            ..Default::default()
        };
        runtime().block_on(async { self.client().init_swarm(request).await.expect("swarm init") });
    }

    /// The Swarm services on this engine of the run that wrote to `<logs>/<run_id>`.
    pub fn services_of(&self, logs: &Path, run_id: &str) -> usize {
        let scope = verdict::engine::RunScope::new(&logs.join(run_id), run_id).unwrap();
        let filters = std::collections::HashMap::from([("label".to_string(), scope.filter())]);
        let options = bollard::query_parameters::ListServicesOptionsBuilder::default().filters(&filters).build();
        runtime().block_on(async { self.client().list_services(Some(options)).await.map(|s| s.len()).unwrap() })
    }

    /// The containers on this engine of the run that wrote to `<logs>/<run_id>`.
    pub fn containers_of(&self, logs: &Path, run_id: &str) -> usize {
        let scope = verdict::engine::RunScope::new(&logs.join(run_id), run_id).unwrap();
        let Ok(docker) = bollard::Docker::connect_with_unix(
            self.dir.join("docker.sock").to_str().unwrap(),
            30,
            bollard::API_DEFAULT_VERSION,
        ) else {
            return 0;
        };
        let filters = std::collections::HashMap::from([("label".to_string(), scope.filter())]);
        let options =
            bollard::query_parameters::ListContainersOptionsBuilder::default().all(true).filters(&filters).build();
        runtime().block_on(async { docker.list_containers(Some(options)).await.map(|c| c.len()).unwrap_or(0) })
    }

    /// Copies images (and their tags) from the shared engine into this one.
    pub fn load_images(&self, tags: &[String]) {
        let from = bollard::Docker::connect_with_defaults().unwrap();
        let to = bollard::Docker::connect_with_unix(
            self.dir.join("docker.sock").to_str().unwrap(),
            600,
            bollard::API_DEFAULT_VERSION,
        )
        .unwrap();
        let names: Vec<&str> = tags.iter().map(String::as_str).collect();
        runtime().block_on(async {
            let tar = from.export_images(&names);
            let options = bollard::query_parameters::ImportImageOptionsBuilder::default().quiet(true).build();
            let mut load = to.import_image_stream(options, tar, None);
            while let Some(item) = load.next().await {
                item.expect("loading images into the second engine");
            }
        });
    }
}

impl Drop for SecondEngine {
    fn drop(&mut self) {
        self.stop();
        // Removing a data root of copied images takes tens of seconds; it need not hold up
        // the next test.
        let _ = Command::new("rm").arg("-rf").arg(&self.dir).stdout(Stdio::null()).stderr(Stdio::null()).spawn();
    }
}

pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|p| p.join(program).is_file()))
}

/// A loopback registry (Debian's `docker-registry`) with its storage in a folder of its own.
pub struct Registry {
    pub addr: String,
    dir: PathBuf,
    child: Child,
}

impl Registry {
    /// Starts a registry in `engine`'s network namespace, on its loopback (where the engine
    /// pushes without `--insecure-registry`).
    pub fn start_in(engine: &SecondEngine) -> Registry {
        let dir = engine.dir.join("registry");
        let netns = format!("--net=/proc/{}/ns/net", engine.pid());
        let addr = format!("127.0.0.1:{}", free_port());
        std::fs::create_dir_all(&dir).unwrap();
        let config = dir.join("config.yml");
        std::fs::write(
            &config,
            format!(
                "version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: {}\nhttp:\n  addr: {addr}\n",
                dir.join("data").display()
            ),
        )
        .unwrap();
        let log = std::fs::File::create(dir.join("registry.log")).unwrap();
        let child = Command::new("nsenter")
            .arg(&netns)
            .arg("docker-registry")
            .arg("serve")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("docker-registry starts (bash dockerfiles/engine.sh installs it)");
        let (host, port) = addr.split_once(':').unwrap();
        let probe = format!("exec 3<>/dev/tcp/{host}/{port}");
        let started = Instant::now();
        let listening = || {
            let probe = Command::new("nsenter").arg(&netns).args(["bash", "-c", &probe]).stderr(Stdio::null()).status();
            probe.is_ok_and(|s| s.success())
        };
        while !listening() {
            assert!(started.elapsed() < Duration::from_secs(30), "the registry did not start");
            std::thread::sleep(Duration::from_millis(200));
        }
        Registry { addr, dir, child }
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = Command::new("rm").arg("-rf").arg(&self.dir).stdout(Stdio::null()).stderr(Stdio::null()).spawn();
    }
}

/// A loopback port nobody listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// The image tags (OS, base, env, instance) the demo instances `ids` run on, built on the shared
/// engine first when missing.
pub fn demo_image_tags(ids: &[&str], logs: &Path) -> Vec<String> {
    let built = verdict(&["build", "--logs", logs.to_str().unwrap(), "--instance-ids", &ids.join(",")]);
    assert_eq!(built.status.code(), Some(0), "{}", text(&built));
    let root = repo_root();
    let specs = verdict::dataset::spec::SpecRegistry::load(&root.join("harness"), &[]).unwrap();
    let planner = verdict::images::Planner::new(
        root.join("dockerfiles"),
        "verdict-os:bookworm".into(),
        verdict::images::host_certs(Path::new("/usr/local/share/ca-certificates")),
        &specs,
        verdict::images::toolchain::Availability::default(),
    );
    let instances = verdict::dataset::load_instances(&root.join("harness/demo/dataset.jsonl")).unwrap();
    let mut tags = vec!["verdict-os:bookworm".to_string()];
    for instance in instances.iter().filter(|i| ids.contains(&i.instance_id.as_str())) {
        let prepared = verdict::run::plan(&specs, &planner, instance).unwrap();
        for layer in prepared.images.layers() {
            if !tags.contains(&layer.tag) {
                tags.push(layer.tag.clone());
            }
        }
    }
    tags
}
