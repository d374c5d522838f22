console.log("sidecar placeholder");
