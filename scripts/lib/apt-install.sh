# Sourced by the ensure-* scripts: installs Debian packages with apt-get, through sudo when not root.
# Usage: apt_install <what, for the message> <package>...
apt_install() {
  local what=$1
  shift
  local sudo=
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "$what: installing Debian's $* (apt-get)" >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >&2
}
