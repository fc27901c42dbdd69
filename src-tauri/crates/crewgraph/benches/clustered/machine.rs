//! What the cluster bench's processes cost, read from `/proc`: a process's memory
//! ([`memory_of`]), and CPU time split by groups of processes ([`CpuMeter`] →
//! [`CpuSpent`]: the workers, the API node, PostgreSQL's postmaster and backends, the
//! `redis-server`, the bench, and the rest of the machine). The servers are found by
//! the port they listen on ([`postmaster_on`], [`redis_server_on`]).
//!
//! ```ignore
//! let groups = vec![("workers", vec![worker_pid]), ("PostgreSQL", with_children(postmaster))];
//! let meter = CpuMeter::start(&groups);
//! // … the work …
//! println!("{}", meter.finish(&groups).split());   // workers 3.5 / PostgreSQL 5.6 / others 0.2
//! ```

use std::collections::HashMap;
use std::time::Duration;

/// The machine's cores.
pub fn cores() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// `VmRSS` and `VmHWM` (peak) of a process, in KiB.
pub fn memory_of(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// The fields of `/proc/PID/stat` after the command's name (state first), or None
/// once the process is gone.
pub fn stat_fields(pid: u32) -> Option<Vec<u64>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    // The state is a letter; keep its place with a 0 so indexes match proc(5) - 3.
    Some(rest.split_whitespace().map(|f| f.parse().unwrap_or(0)).collect())
}

/// CPU time (user + system) of process `pid`, in clock ticks.
pub fn cpu_ticks(pid: u32) -> Option<u64> {
    let fields = stat_fields(pid)?;
    Some(fields.get(11)? + fields.get(12)?)
}

/// Every process: its pid, its parent, its command line's words.
pub fn processes() -> Vec<(u32, u32, Vec<String>)> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let parent = *stat_fields(pid)?.get(1)? as u32;
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let words = cmdline.split(|b| *b == 0).map(|w| String::from_utf8_lossy(w).into_owned()).collect();
            Some((pid, parent, words))
        })
        .collect()
}

/// The PostgreSQL server listening on `port` (its postmaster).
pub fn postmaster_on(port: u16) -> Option<u32> {
    let port = port.to_string();
    processes().into_iter().find_map(|(pid, _, words)| {
        let is_postgres = words.first().is_some_and(|w| w.ends_with("/postgres") || w == "postgres");
        (is_postgres && words.windows(2).any(|pair| pair[0] == "-p" && pair[1] == port)).then_some(pid)
    })
}

/// The `redis-server` listening on `port` (its title is `redis-server 127.0.0.1:PORT`).
pub fn redis_server_on(port: u16) -> Option<u32> {
    let address = format!(":{port}");
    processes().into_iter().find_map(|(pid, _, words)| {
        let title = words.join(" ");
        (title.contains("redis-server") && title.split_whitespace().any(|w| w.ends_with(&address))).then_some(pid)
    })
}

/// `root` and its children (a postmaster's backends).
pub fn with_children(root: u32) -> Vec<u32> {
    let mut pids = vec![root];
    pids.extend(processes().into_iter().filter(|(_, parent, _)| *parent == root).map(|(pid, _, _)| pid));
    pids
}

/// Busy and total jiffies of the whole machine (`/proc/stat`).
pub fn machine_jiffies() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let numbers: Vec<u64> = stat.lines().next().unwrap_or("").split_whitespace().skip(1).filter_map(|f| f.parse().ok()).collect();
    let total: u64 = numbers.iter().take(8).sum();
    let idle = numbers.get(3).copied().unwrap_or(0) + numbers.get(4).copied().unwrap_or(0);
    (total - idle, total)
}

/// Named groups of processes whose CPU time is measured together.
pub type Groups = Vec<(&'static str, Vec<u32>)>;

/// Where the CPU went over a phase: each group's CPU time, and how busy the whole
/// machine was.
pub struct CpuMeter {
    ticks: HashMap<u32, u64>,
    machine: (u64, u64),
}

/// What a [`CpuMeter`] measured.
pub struct CpuSpent {
    /// Seconds of CPU per group, in the groups' order.
    pub groups: Vec<(&'static str, f64)>,
    /// Seconds of CPU the rest of the machine spent (other people's programs, the kernel's threads).
    pub others: f64,
    /// The machine's busy share over the phase (1.0: every core busy throughout).
    pub busy: f64,
}

impl CpuMeter {
    pub fn start(groups: &Groups) -> CpuMeter {
        let ticks = groups.iter().flat_map(|(_, pids)| pids).filter_map(|pid| Some((*pid, cpu_ticks(*pid)?))).collect();
        CpuMeter { ticks, machine: machine_jiffies() }
    }

    /// The CPU spent since the start by `groups` (as they are now: processes started
    /// since count from zero, processes ended since are lost).
    pub fn finish(&self, groups: &Groups) -> CpuSpent {
        // SAFETY: sysconf with a valid name only reads a configuration value.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
        let groups: Vec<(&'static str, f64)> = groups
            .iter()
            .map(|(name, pids)| {
                let spent: u64 =
                    pids.iter().filter_map(|pid| Some(cpu_ticks(*pid)?.saturating_sub(self.ticks.get(pid).copied().unwrap_or(0)))).sum();
                (*name, spent as f64 / hz)
            })
            .collect();
        let (busy, total) = machine_jiffies();
        let (busy, total) = (busy - self.machine.0, total - self.machine.1);
        let others = (busy as f64 / hz - groups.iter().map(|(_, s)| s).sum::<f64>()).max(0.0);
        CpuSpent { groups, others, busy: busy as f64 / total.max(1) as f64 }
    }
}

impl CpuSpent {
    pub fn total(&self) -> f64 {
        self.groups.iter().map(|(_, s)| s).sum()
    }

    /// The share of the machine's CPU the rest of the machine took over `wall`.
    pub fn others_share(&self, wall: Duration) -> f64 {
        self.others / (wall.as_secs_f64() * cores() as f64).max(1e-9)
    }

    /// `workers 12.3 / API node 0.4 / … / others 1.0` in seconds.
    pub fn split(&self) -> String {
        let mut parts: Vec<String> = self.groups.iter().map(|(name, s)| format!("{name} {s:.1}")).collect();
        parts.push(format!("others {:.1}", self.others));
        parts.join(" / ")
    }
}
