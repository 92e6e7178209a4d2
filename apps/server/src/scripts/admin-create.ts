console.log('admin:create arrives with the admin issue'); process.exit(1);
