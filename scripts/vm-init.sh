#!/bin/sh
# sandbench guest init: PID 1 of the QEMU executors' initramfs (busybox ash, applets in /bin).
# Loads the virtio modules in dependency order (the cloud kernel builds them as modules and ships
# no modules.dep), finds the three disks by their virtio serial (sbroot: task image, read-only;
# sbscratch: per-trial ext4 with lower/ = baseline workspace, upper/ + work/ for the overlay;
# sbtask: a shell fragment from the host that sets SB_STDIN and the argv), runs the task chrooted
# into the image with /workspace as an overlay whose writes land in the scratch disk's upper/,
# prints `REFERENCE_EXIT <code>` on the serial console and resets (reboot=t + qemu -no-reboot
# make that a clean qemu exit; backend-notes "QEMU").
# Task stdout/stderr go through FIFOs (so the task sees pipes, as on every other backend, and git
# opens no pager) to ttyS0 (qemu stdout) and hvc0 (a virtconsole wired to qemu stderr).
export PATH=/bin

console=/dev/ttyS0

fail() {
  printf '\nSANDBENCH_INIT_ERROR %s\n' "$*" > "$console"
  sync
  reboot -f
  exit 1
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

transport=mmio probe=
read -r cmdline < /proc/cmdline
for arg in $cmdline; do
  case "$arg" in
    sandbench.transport=*) transport=${arg#*=} ;;
    sandbench.probe=1) probe=1 ;;
  esac
done

while read -r module; do
  [ -n "$module" ] || continue
  insmod "/lib/modules/$module" || fail "insmod $module failed"
done < "/etc/modules-$transport"

# Accelerator probe: the kernel reached userspace and loaded its modules; that is all we ask.
if [ -n "$probe" ]; then
  echo "REFERENCE_EXIT 0" > "$console"
  stty -F "$console" -echo
  reboot -f
fi

root= scratch= task= tries=0
while :; do
  for block in /sys/block/vd*; do
    [ -e "$block/serial" ] || continue
    serial=
    read -r serial < "$block/serial"
    case "$serial" in
      sbroot) root=/dev/${block##*/} ;;
      sbscratch) scratch=/dev/${block##*/} ;;
      sbtask) task=/dev/${block##*/} ;;
    esac
  done
  [ -n "$root" ] && [ -n "$scratch" ] && [ -n "$task" ] && break
  tries=$((tries + 1))
  [ "$tries" -gt 300 ] && fail "disks not found (root=$root scratch=$scratch task=$task)"
  usleep 10000
done

SB_STDIN=none SB_MOUNTS= SB_NET=
. "$task" || fail "cannot read the task file"
[ "$#" -gt 0 ] || fail "empty task argv"

# Service route (SB_NET="<guest addr> <service addr>"): the NIC's modules, lo, a /32 and one host
# route, so only the service address routes; everything else fails at once (ENETUNREACH).
if [ -n "$SB_NET" ]; then
  while read -r module; do
    [ -n "$module" ] || continue
    insmod "/lib/modules/$module" || fail "insmod $module failed"
  done < /etc/modules-net
  tries=0
  until [ -e /sys/class/net/eth0 ]; do
    tries=$((tries + 1))
    [ "$tries" -gt 300 ] && fail "no eth0 after loading virtio_net"
    usleep 10000
  done
  ip link set lo up || fail "cannot bring lo up"
  ip link set eth0 up || fail "cannot bring eth0 up"
  ip addr add "${SB_NET% *}/32" dev eth0 || fail "cannot address eth0"
  ip route add "${SB_NET#* }/32" dev eth0 || fail "cannot add the service route"
fi

mount -t ext4 -o ro "$root" /newroot || fail "cannot mount the image disk"
mount -t ext4 -o noinit_itable "$scratch" /mnt/scratch || fail "cannot mount the scratch disk"
mount -t overlay overlay -o lowerdir=/mnt/scratch/lower,upperdir=/mnt/scratch/upper,workdir=/mnt/scratch/work /newroot/workspace \
  || fail "cannot mount the workspace overlay"
mount -t proc proc /newroot/proc || fail "cannot mount /proc"
mount -t sysfs -o ro sysfs /newroot/sys || fail "cannot mount /sys"
mount -t devtmpfs devtmpfs /newroot/dev || fail "cannot mount /dev"
# Pseudo-terminals, as namespaces and containers have them: OpenHands' terminal tool opens a pty.
mkdir -p /newroot/dev/pts && mount -t devpts -o ptmxmode=0666 devpts /newroot/dev/pts || fail "cannot mount /dev/pts"
mount -t tmpfs -o mode=1777 tmpfs /newroot/tmp || fail "cannot mount /tmp"
# Extra read-only disks (SB_MOUNTS="serial=target ..."), mount points made in a tmpfs on /run
# because the image is read-only.
if [ -n "$SB_MOUNTS" ]; then
  mount -t tmpfs -o mode=755 tmpfs /newroot/run || fail "cannot mount /run"
  for entry in $SB_MOUNTS; do
    want=${entry%%=*} target=${entry#*=} dev= tries=0
    while [ -z "$dev" ]; do
      for block in /sys/block/vd*; do
        serial=
        [ -e "$block/serial" ] && read -r serial < "$block/serial"
        [ "$serial" = "$want" ] && dev=/dev/${block##*/}
      done
      tries=$((tries + 1))
      [ -z "$dev" ] && [ "$tries" -gt 300 ] && fail "disk $want not found"
      [ -z "$dev" ] && usleep 10000
    done
    mkdir -p "/newroot$target" || fail "cannot make $target"
    mount -t ext4 -o ro "$dev" "/newroot$target" || fail "cannot mount $want at $target"
  done
fi
echo sandbench-task > /proc/sys/kernel/hostname

# No echo: stdin lines the host sends (density GO) must not come back as output lines.
stty -F "$console" -echo
mkfifo /run/out /run/err
cat /run/out > "$console" &
outcat=$!
cat /run/err > /dev/hvc0 &
errcat=$!
stdin=/dev/null
if [ "$SB_STDIN" = pipe ]; then
  stdin=$console
  # Bytes sent before the UART driver and this tty were ready would be lost: the host holds its
  # stdin writes until it reads this line (echo is already off, so they are not echoed back).
  echo SANDBENCH_STDIN_OPEN > "$console"
fi

# setsid: the task and its descendants form one process group we can kill after it exits.
setsid chroot /newroot "$@" < "$stdin" > /run/out 2> /run/err &
taskpid=$!
wait "$taskpid"
code=$?
kill -9 "-$taskpid" 2> /dev/null
wait "$outcat" "$errcat"
# Anything the task left running in another session would keep the scratch disk busy.
kill -9 -1 2> /dev/null

sync
umount /newroot/workspace
umount /mnt/scratch || fail "scratch disk busy after the task (exit $code)"
# The epilogue starts with a newline in case the task's last output line had none (the host drops
# the empty line this makes otherwise). OOM kills are reported so the host can tell them apart.
printf '\n' > "$console"
while read -r key value; do
  [ "$key" = oom_kill ] && [ "$value" != 0 ] && echo "SANDBENCH_GUEST_OOM $value" > "$console"
done < /proc/vmstat
echo "REFERENCE_EXIT $code" > "$console"
# stty sets attributes with TCSADRAIN: returns only once queued console output has been sent.
stty -F "$console" -echo
stty -F /dev/hvc0 -echo
reboot -f
