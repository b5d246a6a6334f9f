// RUN: shell reading (quotes, sh -c, heredocs, variables) and dispatch to
// the package managers and file operations.
#include <doctest/doctest.h>

#include "dockerfile/run.h"
#include "dockerfile_fixture.h"

using nlohmann::json;
using namespace imagelint::dockerfile;
using namespace imagelint::testing::dockerfile_fixture;

TEST_CASE("RUN shell reading: quoting, sh -c, heredocs, variables, package managers") {
  json facts = Facts(
      "FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\n"
      "ARG TORCH=2.1.2\n"
      "ENV PIP_FLAGS=--no-cache-dir\n"
      "RUN set -eux; \\\n"
      "    pip3 install $PIP_FLAGS \"torch==${TORCH}\" --index-url https://download.pytorch.org/whl/cu121 \\\n"
      "    && pip install 'jax[cuda12_pip]==0.4.23' cupy-cuda12x nvidia-cuda-runtime-cu12==12.1.105 \\\n"
      "    || true\n"
      "RUN <<EOF\n"
      "uv pip install tensorflow==2.15.0\n"
      "EOF\n"
      "RUN [\"/bin/sh\", \"-c\", \"apt-get install -y --no-install-recommends cuda-compat-12-4=550.54.15-1 libnvidia-compute-535\"]\n"
      "RUN conda install -y -c pytorch pytorch==2.0.1 pytorch-cuda=11.8 && conda clean -a\n");
  const json* torch = Find(facts["frameworks"], "name", "torch");
  REQUIRE(torch != nullptr);
  // conda's later install replaced pip's torch
  CHECK((*torch)["installer"] == "conda");
  CHECK((*torch)["version"] == "2.0.1");
  CHECK((*torch)["cuda"] == "11.8");
  CHECK((*torch)["dockerfile_line"] == 12);
  const json* jax = Find(facts["frameworks"], "name", "jax");
  REQUIRE(jax != nullptr);
  CHECK((*jax)["cuda"] == "12");
  CHECK((*jax)["version"] == "0.4.23");
  CHECK(Find(facts["frameworks"], "name", "cupy")->at("cuda") == "12.x");
  const json* tf = Find(facts["frameworks"], "name", "tensorflow");
  REQUIRE(tf != nullptr);
  CHECK((*tf)["cuda"] == "12.2");
  CHECK((*tf)["dockerfile_line"] == 8);
  CHECK((*tf)["installer"] == "uv pip");
  const json* cudart = Find(facts["cuda"]["runtimes"], "source", "pip");
  REQUIRE(cudart != nullptr);
  CHECK((*cudart)["version"] == "12.1.105");
  CHECK((*cudart)["dockerfile_line"] == 4);
  // Pinned compat package: two compat libraries now (base 12.1 and 12.4).
  const json* pinned = Find(facts["cuda"]["drivers"], "package", "cuda-compat-12-4");
  REQUIRE(pinned != nullptr);
  CHECK((*pinned)["version"] == "550.54.15");
  CHECK((*pinned)["version_source"] == "apt pin");
  CHECK((*pinned)["dockerfile_line"] == 11);
  const json* bundled = Find(facts["cuda"]["drivers"], "package", "libnvidia-compute-535");
  REQUIRE(bundled != nullptr);
  CHECK((*bundled)["kind"] == "bundled");
  CHECK((*bundled)["branch"] == "535");
  CHECK((*bundled)["version"].is_null());

  // The pip torch row (before conda replaced it) came from the cu121 index with the ARG value.
  json pip_only = Facts(
      "FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\nARG TORCH=2.1.2\n"
      "RUN pip3 install \"torch==${TORCH}\" --index-url https://download.pytorch.org/whl/cu121\n");
  const json* t = Find(pip_only["frameworks"], "name", "torch");
  REQUIRE(t != nullptr);
  CHECK((*t)["version"] == "2.1.2");
  CHECK((*t)["variant"] == "cu121");
  CHECK((*t)["cuda_source"].get<std::string>().find("--index-url") == 0);
  json cpu = Facts("FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\n"
                   "RUN pip install torch==2.3.0 --index-url https://download.pytorch.org/whl/cpu\n");
  CHECK(Find(cpu["frameworks"], "name", "torch")->at("cuda").is_null());
  json uninstalled = Facts("FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04\n"
                           "RUN pip install torch==2.3.0+cu121 && pip uninstall -y torch\n");
  CHECK(uninstalled["frameworks"].empty());
}

TEST_CASE("RUN forms: shell, exec, heredoc scripts and heredocs fed to programs") {
  CHECK(StripHeredocMarkers("python3 <<EOF arg") == "python3  arg");
  CHECK(StripHeredocMarkers("bash <<-'EOT' && cat <<\"X\"") == "bash  && cat ");
  CHECK(StripHeredocMarkers("echo a<<b") == "echo a");
  CHECK(StripHeredocMarkers("echo << x") == "echo ");  // blanks after `<<`, as BuildKit's lexer reads them
  CHECK(StripHeredocMarkers("echo << ") == "echo << ");  // no name: not a marker
  std::string long_marker = "cat <<" + std::string(100 * 1024, 'E');
  CHECK(StripHeredocMarkers(long_marker) == "cat ");

  json facts = Facts(
      "FROM nvidia/cuda:12.4.1-base-ubuntu22.04\n"
      "RUN python3 <<EOF\nimport os\nEOF\n"
      "RUN bash <<'EOF'\npip install torch==2.1.0+cu121\nEOF\n"
      "RUN [\"pip\", \"install\", \"jax[cuda12]==0.4.30\"]\n");
  CHECK(HasUnknown(facts, "RUN"));  // the python heredoc
  CHECK(Find(facts["frameworks"], "name", "torch")->at("dockerfile_line") == 5);
  CHECK(Find(facts["frameworks"], "name", "jax")->at("dockerfile_line") == 8);

  // Pattern: a server script written by `cat > FILE << 'EOF'` after a torch
  // install. cat only copies the body to the file (data_writers,
  // commands.yaml): nothing is installed, the lists stay complete.
  json written = Facts(
      "FROM python:3.12-slim\nRUN pip install torch==2.5.1\n"
      "RUN cat > /app/server.py << 'PYEOF'\nimport torch\nPYEOF\n"
      "RUN tee /etc/app.conf <<EOF\nport=80\nEOF\n");
  CHECK_FALSE(HasUnknown(written, "RUN"));
  CHECK(written["frameworks_complete"] == true);
  CHECK(Find(written["frameworks"], "name", "torch") != nullptr);

  // Every shell of the posix_shells rows (commands.yaml) reads its heredoc
  // as a script, zsh and BusyBox's ash as well as sh/bash/dash.
  for (const char* shell : {"zsh", "/bin/ash", "dash"}) {
    CAPTURE(shell);
    json fed = Facts(std::string("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN ") + shell +
                     " <<'EOF'\npip install torch==2.1.0+cu121\nEOF\n");
    CHECK_FALSE(HasUnknown(fed, "RUN"));
    const json* torch = Find(fed["frameworks"], "name", "torch");
    REQUIRE(torch != nullptr);
    CHECK(torch->at("version") == "2.1.0");
  }
}

TEST_CASE("RUN under a SHELL that is not POSIX is not read; exec form still is") {
  json facts = Facts(
      "FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nSHELL [\"powershell\", \"-Command\"]\n"
      "RUN pip install torch==2.1.0\nRUN [\"pip\", \"install\", \"torch==2.2.0+cu121\"]\n");
  CHECK(HasUnknown(facts, "RUN"));
  CHECK(Find(facts["frameworks"], "name", "torch")->at("version") == "2.2.0");
  // The SHELL of a parent stage stays in force in the stages built on it.
  json child = Facts(
      "FROM nvidia/cuda:12.4.1-base-ubuntu22.04 AS a\nSHELL [\"cmd\", \"/S\", \"/C\"]\n"
      "FROM a\nRUN pip install torch==2.1.0\n");
  CHECK(HasUnknown(child, "RUN"));
}

TEST_CASE("installers and wrappers: .run files are unknown, sudo/env/exec are looked through") {
  json facts = Facts(
      "FROM nvidia/cuda:12.4.1-base-ubuntu22.04\n"
      "RUN wget https://x/cuda_12.6.0_560.28.03_linux.run && sh cuda_12.6.0_560.28.03_linux.run --silent\n"
      "RUN sudo -E env A=1 pip install torch==2.4.0+cu124 && exec nohup true\n");
  CHECK(HasUnknown(facts, "cuda.drivers"));
  CHECK(HasUnknown(facts, "cuda.runtimes"));
  CHECK(facts["cuda"]["drivers_complete"] == false);
  CHECK(facts["dockerfile"]["notes"].size() >= 1);  // the download
  CHECK(Find(facts["frameworks"], "name", "torch")->at("version") == "2.4.0");
  json direct = Facts("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\nRUN ./cuda_12.6.0_560.28.03_linux.run\n");
  CHECK(HasUnknown(direct, "cuda.drivers"));
}

// Public Dockerfiles install through an interpreter in a variable, an
// environment runner or another user; each is read as the install it runs,
// and one that no reader follows leaves the frameworks unknown, never empty.
TEST_CASE("installs behind interpreters, environment runners and users are read; unknown wrappers are unknown") {
  const char* base = "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n";
  for (const char* run : {"RUN ${PY_EXE} -m pip install --user torch==2.5.1\n",
                          "RUN /opt/venv/bin/python3.11 -m pip install torch==2.5.1\n",
                          "RUN conda run --no-capture-output -n app python -m pip install torch==2.5.1\n",
                          "RUN micromamba run -n base pip install torch==2.5.1\n",
                          "RUN uv run --python 3.11 pip install torch==2.5.1\n",
                          "RUN poetry run pip install torch==2.5.1\n",
                          "RUN su app -c 'pip install --user torch==2.5.1'\n",
                          "RUN runuser -u app -- pip install torch==2.5.1\n",
                          "RUN gosu app pip install torch==2.5.1\n",
                          "RUN timeout 600 pip install torch==2.5.1\n"}) {
    CAPTURE(run);
    json facts = Facts(std::string(base) + run);
    const json* torch = Find(facts["frameworks"], "name", "torch");
    REQUIRE(torch != nullptr);
    CHECK((*torch)["version"] == "2.5.1");
    CHECK(facts["frameworks_complete"] == true);
  }
  // Arguments from standard input: the install is seen, what it adds is not.
  json xargs = Facts(std::string(base) + "RUN cat pkgs.txt | xargs -n 1 pip install torch==2.5.1\n");
  CHECK(Find(xargs["frameworks"], "name", "torch") != nullptr);
  CHECK(xargs["frameworks_complete"] == false);
  // A wrapper nothing here knows: not read, and said so.
  json unknown = Facts(std::string(base) + "RUN with-proxy pip install torch==2.5.1\n");
  CHECK(Find(unknown["frameworks"], "name", "torch") == nullptr);
  CHECK(unknown["frameworks_complete"] == false);
  CHECK(HasUnknown(unknown, "frameworks"));
  // Words that only mention pip install nothing.
  json quiet = Facts(std::string(base) + "RUN pip --version && echo pip install later && python3 -m pipx --help\n");
  CHECK(quiet["frameworks_complete"] == true);
}

TEST_CASE("long RUN lines: a 200 KB word goes through every reader without recursion") {
  std::string word(200 * 1024, 'a');
  for (const std::string& run : {"RUN echo " + word + " > /etc/ld.so.conf.d/x.conf", "RUN rm -rf /" + word,
                                 "RUN ln -s /" + word + "/libcuda.so.1 /usr/lib/libcuda.so.1", "RUN curl " + word + ".run",
                                 "RUN apt-get install -y " + word, "RUN conda install " + word + "=1.0",
                                 "RUN dpkg -i " + word + "-cuda.deb", "RUN mv /" + word + " /x"}) {
    CAPTURE(run.substr(0, 40));
    auto analysis = Analyze("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\n" + run + "\n");
    REQUIRE(analysis.ok());
    CHECK(analysis->facts.dump().size() < 2 * 1024 * 1024);
  }
}
